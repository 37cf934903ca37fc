"""Settings overrides in the admin (test client): the same validation and audit as the API,
the signed-in key as the actor, a read-only audit trail, each tenant's own rows only."""

from __future__ import annotations

import pytest

from ctx.overrides import resolver
from ctx.overrides.models import SettingAudit, SettingOverride
from tests.admin.conftest import Keys, sign_in

pytestmark = pytest.mark.django_db
ADD = "/admin/ctx/settingoverride/add/"


def test_it_refuses_what_the_api_refuses_with_the_same_findings(keys: Keys) -> None:
    root = sign_in(keys.root)
    resp = root.post(ADD, {"key": "CTX_RRF_K", "tenant_name": "", "value_json": "0"})
    assert resp.status_code == 200  # the form again, with the finding
    assert "CTX_RRF_K=0: must be between 1 and 1000" in resp.content.decode()
    resp = root.post(ADD, {"key": "CTX_RERANK_BUDGET_MS", "tenant_name": "acme", "value_json": "9"})
    assert "cannot be overridden per tenant" in resp.content.decode()
    resp = root.post(ADD, {"key": "CTX_RRF_K", "tenant_name": "", "value_json": "{oops"})
    assert "Not valid JSON." in resp.content.decode()
    assert not SettingOverride.objects.exists() and not SettingAudit.objects.exists()


def test_it_sets_audits_changes_and_unsets_through_the_operations(keys: Keys) -> None:
    client = sign_in(keys.owner)
    resp = client.post(ADD, {"key": "CTX_RRF_K", "tenant_name": "acme", "value_json": "25"})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    assert resolver.value("CTX_RRF_K", keys.acme.pk) == 25
    row = SettingOverride.objects.get()
    resp = client.post(f"/admin/ctx/settingoverride/{row.pk}/change/", {"value_json": "30"})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    resp = client.post(f"/admin/ctx/settingoverride/{row.pk}/delete/", {"post": "yes"})
    assert resp.status_code == 302 and not SettingOverride.objects.exists()
    trail = list(
        SettingAudit.objects.order_by("id").values_list("action", "tenant", "old", "new", "actor")
    )
    who = keys.owner_key.prefix
    assert trail == [
        ("set", "acme", None, 25, who),
        ("set", "acme", 25, 30, who),
        ("unset", "acme", 30, None, who),
    ]


def test_it_keeps_a_tenants_staff_to_its_own_rows(keys: Keys) -> None:
    sign_in(keys.boss).post(ADD, {"key": "CTX_RRF_K", "tenant_name": "globex", "value_json": "7"})
    sign_in(keys.root).post(ADD, {"key": "CTX_RRF_K", "tenant_name": "", "value_json": "9"})
    client = sign_in(keys.owner)
    assert list(client.get("/admin/ctx/settingoverride/").context["cl"].result_list) == []
    assert list(client.get("/admin/ctx/settingaudit/").context["cl"].result_list) == []
    resp = client.post(ADD, {"key": "CTX_RRF_K", "tenant_name": "globex", "value_json": "1"})
    assert resp.status_code == 200  # globex is not among acme's choices
    assert SettingOverride.objects.count() == 2


def test_the_audit_trail_is_read_only(keys: Keys) -> None:
    root = sign_in(keys.root)
    root.post(ADD, {"key": "CTX_RRF_K", "tenant_name": "", "value_json": "25"})
    audit = SettingAudit.objects.get()
    assert root.get("/admin/ctx/settingaudit/").status_code == 200
    assert root.get("/admin/ctx/settingaudit/add/").status_code == 403
    resp = root.post(f"/admin/ctx/settingaudit/{audit.pk}/delete/", {"post": "yes"})
    assert resp.status_code == 403 and SettingAudit.objects.count() == 1
