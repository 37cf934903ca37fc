"""Tenant lifecycle: create with a first owner, suspend (at once), resume, ordered deletion."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

import secrets
from ctx import tenancy
from ctx.mcp.auth import principal_for_bearer
from ctx.models import ApiKey, Block, Tenant
from ctx.oauth import identity
from ctx.overrides.models import SettingOverride
from ctx.selectors import principal_for_key
from dream.models import Link
from secrets.models import Secret
from tests.tenancy.conftest import Client, Tiers

RESOURCE = "http://testserver/mcp"


def _token_for(key: ApiKey) -> str:
    """A token of the key's OAuth user, through a client that user owns (its tenant's)."""
    raw = secrets.token_urlsafe(32)
    user = identity.user_for_key(key)
    app = get_application_model().objects.create(
        name="t", user=user, client_type="public", authorization_grant_type="authorization-code"
    )
    get_access_token_model().objects.create(
        user=user,
        application=app,
        token=raw,
        expires=timezone.now() + timedelta(hours=1),
        scope="mcp",
        resource=[RESOURCE],
    )
    return raw


def test_it_creates_a_tenant_whose_owner_key_is_shown_once(tiers: Tiers) -> None:
    status, data = tiers.server_admin.post("/api/admin/tenants", {"name": "newco", "scopes": ["x"]})
    assert status == 201, data
    assert data["scopes"] == ["newco:main", "x"]
    me = Client(data["owner_key"]).get("/api/whoami")[1]
    assert (me["tenant"], me["role"], me["write_scopes"]) == ("newco", "owner", ["newco:main", "x"])
    listed = tiers.server_admin.get("/api/admin/tenants")[1]["tenants"]
    assert {"name": "newco", "status": "active", "scopes": 2, "active_keys": 1}.items() <= next(
        t for t in listed if t["name"] == "newco"
    ).items()
    assert data["owner_key"] not in str(listed)


def test_it_refuses_a_bad_or_taken_tenant_name(tiers: Tiers) -> None:
    assert tiers.server_admin.post("/api/admin/tenants", {"name": "Bad Name"})[0] == 400
    status, data = tiers.server_admin.post("/api/admin/tenants", {"name": "acme"})
    assert (status, data["error"]["code"]) == (409, "conflict")


def test_a_scope_name_carries_its_own_tenants_prefix(tiers: Tiers) -> None:
    status, data = tiers.owner.post("/api/admin/scopes", {"name": "globex:x"})
    assert (status, data["error"]["details"]) == (400, {"field": "name"}), data
    assert tiers.owner.get("/api/whoami")[1]["write_scopes"].count("globex:x") == 0
    for name in ("acme:plans", "notes"):  # its own prefix, or none
        assert tiers.owner.post("/api/admin/scopes", {"name": name})[0] == 201
    status, data = tiers.server_admin.post(
        "/api/admin/tenants", {"name": "newco", "scopes": ["acme:spoof"]}
    )
    assert (status, data["error"]["code"]) == (400, "validation_error"), data
    listed = tiers.server_admin.get("/api/admin/tenants")[1]["tenants"]
    assert "newco" not in {t["name"] for t in listed}  # nothing half-made


def test_it_stops_every_key_of_a_suspended_tenant_on_the_next_request(tiers: Tiers) -> None:
    assert tiers.member.get("/api/whoami")[0] == 200
    assert tiers.server_admin.post("/api/admin/tenants/acme/suspend")[0] == 200
    for client in (tiers.owner, tiers.admin, tiers.member):
        status, data = client.get("/api/whoami")
        assert (status, data["error"]["code"]) == (401, "unauthorized")
    assert tiers.outsider.get("/api/whoami")[0] == 200  # another tenant is untouched
    assert tiers.server_admin.post("/api/admin/tenants/acme/resume")[0] == 200
    assert tiers.member.get("/api/whoami")[0] == 200


def test_it_stops_the_mcp_oauth_tokens_of_a_suspended_tenant(tiers: Tiers) -> None:
    token = _token_for(tiers.keys["member2"])
    assert principal_for_bearer(token, RESOURCE) is not None
    tiers.server_admin.post("/api/admin/tenants/acme/suspend")
    assert principal_for_bearer(token, RESOURCE) is None


def test_it_keeps_a_server_admin_from_locking_out_its_own_tenant(tiers: Tiers) -> None:
    for method, path in (
        ("POST", "/api/admin/tenants/ops/suspend"),
        ("DELETE", "/api/admin/tenants/ops"),
    ):
        status, data = tiers.server_admin.call(method, path)
        assert (status, data["error"]["code"]) == (409, "conflict")
    assert tiers.server_admin.get("/api/whoami")[0] == 200


def test_it_answers_404_for_a_tenant_that_does_not_exist(tiers: Tiers) -> None:
    assert tiers.server_admin.post("/api/admin/tenants/nosuch/suspend")[0] == 404
    assert tiers.server_admin.delete("/api/admin/tenants/nosuch")[0] == 404


# --- deletion -------------------------------------------------------------------------------


def _row_counts() -> Counter[str]:
    """Rows of every table of every installed app (what "nothing else" is checked against)."""
    return Counter({m._meta.label: m._default_manager.count() for m in apps.get_models()})


def _fill(sa: Client, tenant_name: str, blocks: int) -> Client:
    """A tenant with blocks, links, a superseded chain, keys, an OAuth client and a token."""
    status, data = sa.post(
        "/api/admin/tenants", {"name": tenant_name, "scopes": [f"{tenant_name}:b"]}
    )
    assert status == 201, data
    owner = Client(data["owner_key"])
    ids = [owner.store(title=f"n{i}", content=f"note {i}")["id"] for i in range(blocks)]
    owner.store(scope=f"{tenant_name}:b", title="other scope")
    rows = list(Block.objects.filter(pk__in=ids).order_by("title"))
    rows[0].superseded_by = rows[1]
    rows[0].save(update_fields=["superseded_by"])
    for a, b in itertools.pairwise(rows):
        Link.objects.create(
            source=a,
            target=b,
            link_class="causal",
            scope=a.scope,
            confidence=0.9,
            raw_confidence=0.9,
            origin="manual",
        )
    owner.post("/api/keys", {"name": "m", "role": "member"})
    key = ApiKey.objects.get(prefix=data["owner_prefix"])
    _token_for(key)
    owner.post("/api/oauth/clients", {"name": "c", "redirect_uris": ["http://127.0.0.1:9/cb"]})
    tenant = Tenant.objects.get(name=tenant_name)
    secret = Secret.objects.create(
        scope=tenant.scopes.get(name=f"{tenant_name}:main"),
        name="llm-key",
        ciphertext=b"sealed",
        nonce=b"0" * 12,
        key_version="v1",
        created_by="test",
    )
    # A tenant override naming the tenant's own secret (RESTRICT): both must go together.
    SettingOverride.objects.create(
        key="CTX_LLM_API_KEY", tenant=tenant, secret=secret, updated_by="test"
    )
    return owner


def test_it_deletes_everything_of_the_tenant_and_nothing_else(tiers: Tiers) -> None:
    _fill(tiers.server_admin, "keep", 3)  # a neighbour with the same kinds of rows
    before = _row_counts()
    _fill(tiers.server_admin, "doomed", 5)
    assert _row_counts() != before
    status, data = tiers.server_admin.delete("/api/admin/tenants/doomed")
    assert status == 200, data
    assert data["deleted"] == {"blocks": 6, "keys": 2, "scopes": 2}
    assert _row_counts() == before
    assert Tenant.objects.filter(name="keep").exists()


def test_it_deletes_in_batches_and_finishes_after_a_crash(tiers: Tiers, monkeypatch: Any) -> None:
    before = _row_counts()
    owner = _fill(tiers.server_admin, "doomed", 5)
    admin = principal_for_key(tiers.server_admin.key or "")
    assert admin is not None

    def crash(tenant: Tenant) -> int:
        raise RuntimeError("worker killed")

    monkeypatch.setattr(tenancy, "_purge_keys", crash)
    with pytest.raises(RuntimeError):
        tenancy.tenant_delete(principal=admin, name="doomed", batch=2)
    assert Tenant.objects.get(name="doomed").status == "suspended"  # its keys stopped first
    assert owner.get("/api/whoami")[0] == 401
    assert not Block.objects.filter(scope__tenant__name="doomed").exists()
    monkeypatch.undo()
    assert tiers.server_admin.delete("/api/admin/tenants/doomed")[0] == 200  # a re-run finishes
    assert _row_counts() == before


def test_it_logs_progress_per_batch(tiers: Tiers, caplog: Any) -> None:
    _fill(tiers.server_admin, "doomed", 5)
    admin = principal_for_key(tiers.server_admin.key or "")
    assert admin is not None
    with caplog.at_level("INFO", logger="ctx.tenancy"):
        tenancy.tenant_delete(principal=admin, name="doomed", batch=2)
    progress = [r.getMessage() for r in caplog.records if "blocks deleted so far" in r.getMessage()]
    assert progress == [f"tenant doomed: {n} blocks deleted so far" for n in (2, 4, 6)]


def test_it_leaves_other_tenants_services_working(tiers: Tiers) -> None:
    kept = tiers.outsider.store(title="mine")["id"]
    _fill(tiers.server_admin, "doomed", 2)
    tiers.server_admin.delete("/api/admin/tenants/doomed")
    assert tiers.outsider.post("/api/manage", {"action": "get", "id": kept})[0] == 200


def test_it_refuses_to_finish_while_something_outside_names_its_rows(tiers: Tiers) -> None:
    _fill(tiers.server_admin, "doomed", 2)
    secret = Secret.objects.get(scope__tenant__name="doomed")
    server_wide = SettingOverride.objects.create(
        key="CTX_EMBED_API_KEY", tenant=None, secret=secret, updated_by="test"
    )
    status, data = tiers.server_admin.delete("/api/admin/tenants/doomed")
    assert (status, data["error"]["code"]) == (409, "conflict")
    assert Tenant.objects.get(name="doomed").status == "suspended"
    server_wide.delete()
    assert tiers.server_admin.delete("/api/admin/tenants/doomed")[0] == 200
