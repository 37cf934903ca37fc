from __future__ import annotations

from tests.cli.conftest import Cli


def test_it_reports_ok_without_a_key(cli: Cli) -> None:
    run = cli("health", CTX_KEY=None)
    assert run.returncode == 0, run.stderr
    assert run.json() == {"base_url": cli.url, "status": "ok"}


def test_it_prints_a_line_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("health")
    assert run.returncode == 0 and f"ctx at {cli.url}: ok" in run.stdout


def test_it_fails_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("health")
    assert run.returncode == 1 and "cannot reach ctx at" in run.stderr
