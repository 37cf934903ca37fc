"""`ctx doctor`: one line per part of the set-up, failing (exit 1) on what stops ctx working."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Cli
from tests.cli_sessions.conftest import make_home
from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared


@pytest.fixture(scope="module")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """uvicorn serving the whole ASGI app: the version check reads /mcp's handshake."""
    yield from shared(tmp_path_factory)


def _checks(run_json: dict) -> dict[str, dict]:
    return {c["check"]: c for c in run_json["checks"]}


def _with_codex_logs_and_hooks(tmp_path: Path) -> Path:
    """A home holding Codex's fixture logs and a Claude Code settings file with the hook."""
    home = make_home("codex", tmp_path)
    claude = home / ".claude"
    claude.mkdir()
    hook = {"type": "command", "command": "ctx brief --hook"}
    settings = {"hooks": {"SessionStart": [{"hooks": [hook]}]}}
    (claude / "settings.json").write_text(json.dumps(settings))
    return home


def test_it_finds_everything_in_order_on_a_set_up_machine(
    live: LiveServer, live_cast: Cast, tmp_path: Path
) -> None:
    home = _with_codex_logs_and_hooks(tmp_path)
    ready = Cli(home=home, url=live.url, key=live_cast.owner.key)
    run = ready("doctor")
    assert run.returncode == 0, run.stderr
    body = run.json()
    checks = _checks(body)
    assert body["ok"] is True and all(c["status"] == "ok" for c in body["checks"]), body
    assert "tenant acme" in checks["key"]["detail"]
    assert "codex" in checks["session logs"]["detail"]
    assert "python" in checks["exec"]["detail"]
    table = ready.tty("doctor")
    assert "session logs" in table.stdout and "briefs sessions from ctx" in table.stdout


def test_it_warns_of_what_only_limits_a_feature(
    live: LiveServer, live_cast: Cast, tmp_path: Path
) -> None:
    empty = Cli(home=tmp_path, url=live.url, key=live_cast.owner.key)
    run = empty("doctor")  # an empty home: no logs, no Claude Code settings
    assert run.returncode == 0, run.stderr
    checks = _checks(run.json())
    assert checks["session logs"]["status"] == "warn" and checks["hooks"]["status"] == "warn"
    assert "Claude Code hooks not set" in checks["hooks"]["detail"]


def test_it_fails_on_a_refused_key(live: LiveServer, live_cast: Cast, tmp_path: Path) -> None:
    run = Cli(home=tmp_path, url=live.url, key="ctx_nothere_0123456789abcdef")("doctor")
    assert run.returncode == 1 and "key failed" in run.stderr
    checks = _checks(run.json())
    assert checks["server"]["status"] == "ok" and checks["key"]["status"] == "fail"


def test_it_fails_when_the_server_cannot_be_reached(tmp_path: Path) -> None:
    offline = Cli(home=tmp_path, url="http://127.0.0.1:9", key="ctx_some_key")
    run = offline("doctor")
    assert run.returncode == 1 and "server failed" in run.stderr
    checks = _checks(run.json())
    assert checks["server"]["status"] == "fail" and "cannot reach" in checks["server"]["detail"]
    assert checks["key"] == {"check": "key", "status": "warn", "detail": "not checked"}


def test_it_says_when_no_key_is_configured(tmp_path: Path) -> None:
    bare = Cli(home=tmp_path, url="http://127.0.0.1:9", key=None)
    shutil.rmtree(bare.config_dir, ignore_errors=True)
    run = bare("doctor")
    assert run.returncode == 1
    assert _checks(run.json())["config"]["status"] == "warn"
