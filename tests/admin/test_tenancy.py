"""Tenants and keys in the admin (test client): the tenant lifecycle as the API runs it, key
scopes, tiers, and a session that ends with its key."""

from __future__ import annotations

import pytest

from ctx.admin.base import SHOWN_ONCE
from ctx.models import ApiKey, Block, Scope, Tenant
from tests.admin.conftest import Keys, block, sign_in
from tests.conftest import Api

pytestmark = pytest.mark.django_db


def test_it_runs_a_tenants_lifecycle_for_a_server_admin(keys: Keys) -> None:
    root = sign_in(keys.root)
    resp = root.post(
        "/admin/ctx/tenant/add/",
        {"name": "initech", "display_name": "Initech", "scopes": "initech:ops"},
    )
    tenant = Tenant.objects.get(name="initech")
    assert resp["Location"] == f"/admin/ctx/tenant/{tenant.pk}/change/"
    owner_key = root.get(resp["Location"]).context["shown_once"]["secret"]
    assert Api(owner_key).get("/api/whoami")[1]["tenant"] == "initech"
    assert sorted(tenant.scopes.values_list("name", flat=True)) == ["initech:main", "initech:ops"]
    Api(owner_key).store(title="Plan", content="Staplers for everyone.")

    root.post(f"/admin/ctx/tenant/{tenant.pk}/suspend/")
    assert Api(owner_key).get("/api/whoami")[0] == 401
    root.post(f"/admin/ctx/tenant/{tenant.pk}/resume/")
    assert Api(owner_key).get("/api/whoami")[0] == 200

    page = root.get(f"/admin/ctx/tenant/{tenant.pk}/delete/").content.decode()
    assert "1 blocks" in page and "2 scopes" in page
    root.post(f"/admin/ctx/tenant/{tenant.pk}/delete/", {"post": "yes"})
    assert not Tenant.objects.filter(name="initech").exists()
    assert not Block.objects.filter(title="Plan").exists()
    assert not ApiKey.objects.filter(tenant__name="initech").exists()


def test_it_refuses_tenant_management_to_tenant_staff(keys: Keys) -> None:
    client = sign_in(keys.owner)
    assert client.get("/admin/ctx/tenant/add/").status_code == 403
    client.post(f"/admin/ctx/tenant/{keys.acme.pk}/suspend/")
    client.post(f"/admin/ctx/tenant/{keys.acme.pk}/delete/", {"post": "yes"})
    client.post(f"/admin/ctx/tenant/{keys.globex.pk}/suspend/")
    assert set(Tenant.objects.values_list("status", flat=True)) == {"active"}
    assert Tenant.objects.count() == 3


def test_it_keeps_a_server_admin_from_deleting_its_own_tenant(keys: Keys) -> None:
    ops = Tenant.objects.get(name="ops")
    sign_in(keys.root).post(f"/admin/ctx/tenant/{ops.pk}/delete/", {"post": "yes"})
    assert Tenant.objects.filter(name="ops").exists()


def test_it_changes_a_keys_scopes_through_the_operation(keys: Keys) -> None:
    target, raw = ApiKey.objects.get(name="member"), keys.member
    team = Scope.objects.get(name="acme:team")
    main = Scope.objects.get(name="acme:main")
    resp = sign_in(keys.owner).post(
        f"/admin/ctx/apikey/{target.pk}/change/",
        {"home_scope": main.pk, "read_scopes": [team.pk], "write_scopes": [team.pk]},
    )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    who = Api(raw).get("/api/whoami")[1]
    assert (who["read_scopes"], who["write_scopes"]) == (["acme:main", "acme:team"], ["acme:team"])


def test_it_refuses_a_key_above_the_operators_tier(keys: Keys) -> None:
    _, admin_raw = _tenant_admin(keys)
    resp = sign_in(admin_raw).post(
        "/admin/ctx/apikey/add/", {"name": "boss2", "role": "owner", "tenant_name": "acme"}
    )
    assert resp.status_code == 200
    assert "This action needs a higher permission tier." in resp.content.decode()
    assert not ApiKey.objects.filter(name="boss2").exists()


def test_it_shows_a_new_key_only_on_the_next_page(keys: Keys) -> None:
    client = sign_in(keys.owner)
    resp = client.post(
        "/admin/ctx/apikey/add/", {"name": "bot", "role": "member", "tenant_name": "acme"}
    )
    assert SHOWN_ONCE in client.session
    client.get("/admin/ctx/apikey/")  # a list page leaves it alone…
    first = client.get(resp["Location"]).context["shown_once"]
    assert first["secret"].startswith("ctx_")
    assert client.get(resp["Location"]).context["shown_once"] is None
    assert SHOWN_ONCE not in client.session  # …the change page removed it from the session


def test_it_ends_the_session_when_the_key_is_revoked(keys: Keys) -> None:
    client = sign_in(keys.owner)
    assert client.get("/admin/ctx/block/").status_code == 200
    ApiKey.objects.filter(pk=keys.owner_key.pk).update(active=False)
    resp = client.get("/admin/ctx/block/")
    assert resp.status_code == 302 and resp["Location"].startswith("/admin/login/")


def test_it_ends_the_session_when_the_tenant_is_suspended(keys: Keys) -> None:
    client = sign_in(keys.owner)
    Tenant.objects.filter(pk=keys.acme.pk).update(status="suspended")
    assert client.get("/admin/").status_code == 302


def test_it_shows_the_llm_call_log_to_server_admins_only(keys: Keys) -> None:
    from retrieval.models import LLMCall

    LLMCall.objects.create(
        pipeline="synthesis", provider="openai", model="m", duration_ms=5, ok=True
    )
    LLMCall.objects.create(pipeline="typing", provider="ollama", model="m", duration_ms=9, ok=False)
    root = sign_in(keys.root)
    assert len(root.get("/admin/retrieval/llmcall/").context["cl"].result_list) == 2
    failed = root.get("/admin/retrieval/llmcall/?ok__exact=0").context["cl"].result_list
    assert [c.pipeline for c in failed] == ["typing"]
    assert sign_in(keys.owner).get("/admin/retrieval/llmcall/").status_code == 403


def _tenant_admin(keys: Keys) -> tuple[ApiKey, str]:
    from ctx import services

    return services.key_create(tenant=keys.acme, name="adm", home="acme:main", role="admin")


def test_it_lists_a_blocks_scope_filter_without_other_tenants(keys: Keys) -> None:
    block(keys.boss_key, "G", "Globex.")
    choices = sign_in(keys.owner).get("/admin/ctx/block/").context["cl"].filter_specs[0]
    assert sorted(label for _, label in choices.lookup_choices) == ["acme:main", "acme:team"]
