from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Api, Cast


def test_it_creates_a_key_that_works_and_is_shown_once(cli: Cli) -> None:
    run = cli(
        "keys",
        "create",
        "laptop",
        "--home",
        "acme:team",
        "--write",
        "acme:team",
        "--read",
        "acme:main",
    )
    assert run.returncode == 0, run.stderr
    made = run.json()
    assert (made["role"], made["home_scope"], made["write_scopes"]) == (
        "member",
        "acme:team",
        ["acme:team"],
    )
    assert Api(made["key"]).get("/api/whoami")[1]["key"]["name"] == "laptop"
    listed = cli("keys", "list").json()
    assert made["key"] not in str(listed)
    assert "laptop" in [k["name"] for k in listed["keys"]]


def test_it_makes_a_read_only_key(cli: Cli) -> None:
    made = cli(
        "keys", "create", "auditor", "--home", "acme:team", "--read-only", "--read", "acme:team"
    ).json()
    assert made["write_scopes"] == [] and made["read_scopes"] == ["acme:team"]


def test_it_shows_the_key_once_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("keys", "create", "laptop", "--home", "acme:main")
    assert run.returncode == 0, run.stderr
    assert "shown once" in run.stdout and "ctx_" in run.stdout


def test_it_lists_keys_as_a_table_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("keys", "list")
    assert run.returncode == 0, run.stderr
    assert "reader" in run.stdout and "owner" in run.stdout and "last used" in run.stdout


def test_it_revokes_a_key_at_once(cli: Cli, live_cast: Cast) -> None:
    made = cli("keys", "create", "temp", "--home", "acme:main").json()
    assert Api(made["key"]).get("/api/whoami")[0] == 200
    run = cli("keys", "revoke", made["prefix"])
    assert run.returncode == 0, run.stderr
    assert run.json()["action"] == "revoked"
    assert Api(made["key"]).get("/api/whoami")[0] == 401


def test_it_reports_the_tier_refusal_of_a_member(cli: Cli, live_cast: Cast) -> None:
    run = cli("keys", "list", CTX_KEY=live_cast.reader.key)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip() == "error: This action needs a higher permission tier. (forbidden)"


def test_it_cannot_revoke_another_tenants_key(cli: Cli, live_cast: Cast) -> None:
    theirs = live_cast.outsider.get("/api/whoami")[1]["key"]["prefix"]
    run = cli("keys", "revoke", theirs)
    assert run.returncode == 1 and "(not_found)" in run.stderr
    assert live_cast.outsider.get("/api/whoami")[0] == 200


def test_it_deletes_a_key_as_revoke_does(cli: Cli) -> None:
    made = cli("keys", "create", "temp", "--home", "acme:main").json()
    run = cli("keys", "delete", made["prefix"])
    assert run.returncode == 0 and run.json()["action"] == "revoked", run.stderr
    assert Api(made["key"]).get("/api/whoami")[0] == 401


def test_it_creates_a_key_with_a_lower_read_ceiling(cli: Cli, live_cast: Cast) -> None:
    made = cli(
        "keys", "create", "agent", "--home", "acme:main", "--max-sensitivity", "internal"
    ).json()
    assert made["max_sensitivity"] == "internal"
    stored = live_cast.owner.store(content="Anna prefers Tuesdays.", sensitivity="personal")
    body = Api(made["key"]).post("/api/manage", {"action": "get", "id": stored["id"]})[1]
    assert body["block"]["content"] == "[redacted:personal]"


def test_it_reports_a_ceiling_above_the_callers_own(cli: Cli, live_cast: Cast) -> None:
    run = cli("keys", "create", "vault", "--home", "acme:main", "--max-sensitivity", "credentials")
    assert run.returncode == 1 and "'personal'" in run.stderr


def test_it_needs_the_home_scope_and_takes_the_tenant_from_it(cli: Cli, live_cast: Cast) -> None:
    run = cli("keys", "create", "laptop")
    assert run.returncode == 2 and "--home" in run.stderr  # argparse names what is missing
    made = cli("keys", "create", "laptop", "--home", "acme:team").json()
    assert made["home_scope"] == "acme:team" and made["write_scopes"] == ["acme:team"]
    assert Api(made["key"]).get("/api/whoami")[1]["tenant"] == "acme"
    # Another tenant's scope: the answer a tenant that does not exist gets.
    theirs = cli("keys", "create", "laptop", "--home", "globex:main")
    nosuch = cli("keys", "create", "laptop", "--home", "nosuch:main")
    assert theirs.returncode == nosuch.returncode == 1
    assert theirs.stderr == nosuch.stderr and "(not_found)" in theirs.stderr


def test_it_grants_the_shared_scope_to_read_and_refuses_it_to_write(cli: Cli) -> None:
    made = cli("keys", "create", "agent", "--home", "acme:main", "--read", "shared").json()
    assert made["read_scopes"] == ["shared"] and made["write_scopes"] == ["acme:main"]
    assert "shared" in Api(made["key"]).get("/api/whoami")[1]["read_scopes"]
    run = cli("keys", "create", "wiki", "--home", "acme:main", "--write", "acme:main,shared")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip() == "error: This action needs a higher permission tier. (forbidden)"
