"""Exit codes, error reporting and configuration precedence, across commands."""

from __future__ import annotations

import pytest

from ctx_cli.main import PLANNED
from tests.cli.conftest import Cli


def test_it_exits_2_on_an_unknown_command(offline_cli: Cli) -> None:
    run = offline_cli("frobnicate")
    assert run.returncode == 2
    assert "invalid choice: 'frobnicate'" in run.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "required"),
        (("save", "notes"), "a category and a title"),
        (("get",), "required"),
        (("api", "GET"), "required"),
    ],
)
def test_it_exits_2_when_arguments_are_missing(
    offline_cli: Cli, args: tuple[str, ...], says: str
) -> None:
    run = offline_cli(*args)  # `search` alone browses (issue 19.2): not missing anything
    assert run.returncode == 2
    assert says in run.stderr


def test_it_exits_2_on_a_malformed_option_value(offline_cli: Cli) -> None:
    assert offline_cli("search", "x", "--limit", "0").returncode == 2
    assert offline_cli("ingest", ".", "--batch", "501").returncode == 2
    assert offline_cli("save", "c", "t", "x", "--meta", "novalue").returncode == 2


def test_it_names_the_file_and_line_of_a_malformed_config(offline_cli: Cli) -> None:
    offline_cli.config_dir.mkdir(parents=True)
    path = offline_cli.config_dir / "config"
    path.write_text("# comment\nCTX_BASE_URL=http://localhost:8000\nthis line is wrong\n")
    run = offline_cli("whoami", CTX_BASE_URL=None, CTX_KEY=None)
    assert run.returncode == 1
    assert run.stderr.strip() == (
        f"error: config file {path}, line 3: expected KEY=value, got 'this line is wrong'"
    )


def test_it_rejects_unknown_settings_and_bad_urls_in_the_config(offline_cli: Cli) -> None:
    offline_cli.config_dir.mkdir(parents=True)
    path = offline_cli.config_dir / "config"
    path.write_text("CTX_BASE_URL=http://x\nCTX_KYE=abc\n")
    run = offline_cli("whoami", CTX_BASE_URL=None, CTX_KEY=None)
    assert run.returncode == 1 and f"{path}, line 2: unknown setting CTX_KYE" in run.stderr
    path.write_text("CTX_BASE_URL=localhost:8000\n")
    run = offline_cli("whoami", CTX_BASE_URL=None, CTX_KEY=None)
    assert run.returncode == 1 and f"{path}, line 1: CTX_BASE_URL must be" in run.stderr


def test_it_says_plainly_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("search", "anything")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith(f"error: cannot reach ctx at {offline_cli.url}: ")
    assert "Traceback" not in run.stderr


def test_it_asks_for_a_key_when_none_is_configured(offline_cli: Cli) -> None:
    run = offline_cli("whoami", CTX_KEY=None)
    assert run.returncode == 1
    assert "no API key configured: run `ctx init` or set CTX_KEY" in run.stderr


def test_it_reads_the_config_file_and_lets_the_environment_override_it(cli: Cli) -> None:
    cli.config_dir.mkdir(parents=True)
    (cli.config_dir / "config").write_text(f"CTX_BASE_URL={cli.url}\nCTX_KEY={cli.key}\n")
    from_file = cli("whoami", CTX_BASE_URL=None, CTX_KEY=None)
    assert from_file.returncode == 0 and from_file.json()["tenant"] == "acme"
    overridden = cli("whoami", CTX_BASE_URL=None, CTX_KEY="ctx_wrong")
    assert overridden.returncode == 1 and "(unauthorized)" in overridden.stderr


def test_it_lists_every_command_in_help(offline_cli: Cli) -> None:
    run = offline_cli("--help")
    assert run.returncode == 0
    for name in ("init", "save", "query", "ingest", "brief", "persist", "statusline", *PLANNED):
        assert f"    {name}" in run.stdout


@pytest.mark.parametrize("name", sorted(PLANNED))
def test_it_exits_1_for_commands_not_available_yet(offline_cli: Cli, name: str) -> None:
    run = offline_cli(name, "list", "--all")
    assert run.returncode == 1
    assert run.stderr.strip() == f"error: `ctx {name}` is not available on this server yet"


def test_it_accepts_json_before_or_after_the_command(cli: Cli) -> None:
    assert cli.tty("--json", "whoami").stdout.lstrip().startswith("{")
    assert cli.tty("whoami", "--json").stdout.lstrip().startswith("{")
