from __future__ import annotations

from ctx.selectors import MALFORMED_KEY
from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_shows_the_key_tenant_and_scopes_as_json_when_piped(cli: Cli) -> None:
    run = cli("whoami")
    assert run.returncode == 0, run.stderr
    me = run.json()
    assert me["tenant"] == "acme" and me["home_scope"] == "acme:main"
    assert me["key"]["name"] == "owner"
    assert me["write_scopes"] == ["acme:main", "acme:team"]


def test_it_draws_a_panel_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("whoami")
    assert run.returncode == 0, run.stderr
    assert "tenant" in run.stdout and "acme:main" in run.stdout
    assert not run.stdout.lstrip().startswith("{")


def test_it_answers_for_the_key_in_use(cli: Cli, live_cast: Cast) -> None:
    run = cli("whoami", CTX_KEY=live_cast.outsider.key)
    assert run.json()["tenant"] == "globex"


def test_it_reports_a_bad_key_with_the_servers_message(cli: Cli) -> None:
    run = cli("whoami", CTX_KEY="ctx_not_a_real_key")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip() == f"error: {MALFORMED_KEY} (unauthorized)"
