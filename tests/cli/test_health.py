from __future__ import annotations

import socket
from typing import Any

from tests.cli.conftest import Cli


def test_it_reports_ok_without_a_key(cli: Cli) -> None:
    run = cli("health", CTX_KEY=None)
    assert run.returncode == 0, run.stderr
    assert run.json() == {
        "base_url": cli.url,
        "status": "ok",
        "checks": {"database": "ok", "redis": "ok", "embedder": "ok", "llm": "not_configured"},
    }


def test_it_prints_a_line_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("health")
    assert run.returncode == 0 and f"ctx at {cli.url}: ok" in run.stdout
    assert "redis     ok" in run.stdout and "llm       not configured" in run.stdout


def test_it_fails_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("health")
    assert run.returncode == 1 and "cannot reach ctx at" in run.stderr


def test_it_names_what_is_down_and_fails(cli: Cli, settings: Any) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        settings.REDIS_URL = f"redis://127.0.0.1:{s.getsockname()[1]}"
    run = cli("health", CTX_KEY=None)
    assert run.returncode == 1 and run.json()["checks"]["redis"] == "down"
    assert "is degraded (down: redis)" in run.stderr
