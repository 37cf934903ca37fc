from __future__ import annotations

from ctx import services
from tests.cli.conftest import Cli
from tests.conftest import Cast

CALLBACK = "https://claude.ai/api/mcp/auth_callback"


def test_it_adds_a_public_client_for_claude_by_default(cli: Cli) -> None:
    run = cli("mcp", "add", "Team connector")
    assert run.returncode == 0, run.stderr
    made = run.json()
    assert (made["client_type"], made["redirect_uris"], made["tenant"]) == (
        "public",
        [CALLBACK],
        "acme",
    )
    assert "client_secret" not in made
    assert made["client_id"] in [c["client_id"] for c in cli("mcp", "list").json()["clients"]]


def test_it_shows_a_confidential_clients_secret_once(cli: Cli) -> None:
    run = cli.tty(
        "mcp", "add", "Backend", "--redirect-uri", "https://a.example/cb", "--confidential"
    )
    assert run.returncode == 0, run.stderr
    assert "client secret" in run.stdout and "shown once" in run.stdout and "/mcp" in run.stdout
    assert "client_secret" not in cli("mcp", "list").stdout


def test_it_refuses_a_redirect_uri_dcr_would_refuse(cli: Cli) -> None:
    run = cli("mcp", "add", "x", "--redirect-uri", "http://evil.example/cb")
    assert run.returncode == 1 and "(validation_error)" in run.stderr


def test_it_deletes_a_client(cli: Cli) -> None:
    client_id = cli("mcp", "add", "gone").json()["client_id"]
    run = cli("mcp", "delete", client_id)
    assert run.returncode == 0, run.stderr
    assert client_id not in cli("mcp", "list").stdout


def test_it_keeps_tenants_apart(cli: Cli, live_cast: Cast) -> None:
    client_id = cli("mcp", "add", "ours").json()["client_id"]
    _, boss = services.key_create(
        tenant=live_cast.globex, name="boss", home="globex:main", role="owner"
    )
    assert client_id not in cli("mcp", "list", CTX_KEY=boss).stdout
    run = cli("mcp", "delete", client_id, CTX_KEY=boss)
    assert run.returncode == 1 and "(not_found)" in run.stderr  # like a client that never was
    run = cli("mcp", "delete", client_id, CTX_KEY=live_cast.reader.key)
    assert run.returncode == 1 and "(forbidden)" in run.stderr  # a member: no tier
    assert client_id in cli("mcp", "list").stdout
