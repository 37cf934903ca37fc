from __future__ import annotations

import ctx
from tests.cli.conftest import Cli


def test_it_prints_the_client_version_as_json_when_piped(offline_cli: Cli) -> None:
    run = offline_cli("version")
    assert run.returncode == 0
    assert run.json() == {"client": ctx.__version__, "server": None}


def test_it_prints_one_line_on_a_terminal(offline_cli: Cli) -> None:
    run = offline_cli.tty("version")
    assert run.returncode == 0 and run.stdout.strip() == f"ctx {ctx.__version__} (client)"


def test_it_needs_no_configuration(offline_cli: Cli) -> None:
    offline_cli.config_dir.mkdir(parents=True)
    (offline_cli.config_dir / "config").write_text("broken\n")
    assert offline_cli("version").returncode == 0
