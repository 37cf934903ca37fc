from __future__ import annotations

import pytest

from ctx import services
from ctx.models import ApiKey, Tenant
from tests.cli.conftest import Cli
from tests.conftest import Api, Cast


@pytest.fixture
def admin_key(live_cast: Cast) -> str:
    _, raw = services.key_create(
        tenant=live_cast.acme, name="root", home="acme:main", is_admin=True, role=ApiKey.Role.OWNER
    )
    return raw


def test_it_lists_the_tenants_for_a_server_admin(cli: Cli, admin_key: str) -> None:
    run = cli("tenants", CTX_KEY=admin_key)
    assert run.returncode == 0, run.stderr
    assert {t["name"] for t in run.json()["tenants"]} == {"acme", "globex"}
    screen = cli.tty("tenants", "list", CTX_KEY=admin_key)
    assert "globex" in screen.stdout and "active" in screen.stdout


def test_it_creates_a_tenant_with_an_owner_key(cli: Cli, admin_key: str) -> None:
    run = cli("tenants", "create", "initech", "--scope", "initech:ops", CTX_KEY=admin_key)
    assert run.returncode == 0, run.stderr
    made = run.json()
    assert made["scopes"] == ["initech:main", "initech:ops"]
    assert Api(made["owner_key"]).get("/api/whoami")[1]["tenant"] == "initech"


def test_it_suspends_and_resumes_a_tenant(cli: Cli, admin_key: str, live_cast: Cast) -> None:
    assert cli("tenants", "suspend", "globex", CTX_KEY=admin_key).json()["status"] == "suspended"
    assert Tenant.objects.get(name="globex").status == "suspended"
    assert cli("tenants", "resume", "globex", CTX_KEY=admin_key).json()["status"] == "active"


def test_it_refuses_a_key_that_is_not_a_server_admin(cli: Cli) -> None:
    run = cli("tenants")
    assert run.returncode == 1 and "(forbidden)" in run.stderr
