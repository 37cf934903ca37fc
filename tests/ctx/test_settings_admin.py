"""Django admin: overrides are validated and audited by the same service; the audit is read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from ctx.overrides import resolver
from ctx.overrides.models import SettingAudit, SettingOverride
from tests.conftest import Cast

pytestmark = pytest.mark.django_db
ADD = "/admin/ctx/settingoverride/add/"


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_it_refuses_what_the_api_refuses_with_the_same_findings(staff: Client, cast: Cast) -> None:
    resp = staff.post(ADD, {"key": "CTX_RRF_K", "tenant": "", "value": "0"})
    assert resp.status_code == 200  # the form again, with the finding
    assert "CTX_RRF_K=0: must be between 1 and 1000" in resp.content.decode()
    resp = staff.post(ADD, {"key": "CTX_RERANK_BUDGET_MS", "tenant": cast.acme.pk, "value": "9"})
    assert "cannot be overridden per tenant" in resp.content.decode()
    assert not SettingOverride.objects.exists() and not SettingAudit.objects.exists()


def test_it_saves_audits_and_deletes_through_the_service(staff: Client, cast: Cast) -> None:
    resp = staff.post(ADD, {"key": "CTX_RRF_K", "tenant": cast.acme.pk, "value": "25"})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    assert resolver.value("CTX_RRF_K", cast.acme.pk) == 25
    row = SettingOverride.objects.get()
    audit = SettingAudit.objects.get()
    assert (audit.action, audit.tenant, audit.new, audit.actor) == ("set", "acme", 25, "admin:root")
    resp = staff.post(f"/admin/ctx/settingoverride/{row.pk}/delete/", {"post": "yes"})
    assert resp.status_code == 302 and not SettingOverride.objects.exists()
    assert SettingAudit.objects.latest("id").action == "unset"


def test_the_audit_trail_is_read_only(staff: Client, cast: Cast) -> None:
    staff.post(ADD, {"key": "CTX_RRF_K", "tenant": "", "value": "25"})
    audit = SettingAudit.objects.get()
    assert staff.get("/admin/ctx/settingaudit/").status_code == 200
    assert staff.get("/admin/ctx/settingaudit/add/").status_code == 403
    assert (
        staff.post(f"/admin/ctx/settingaudit/{audit.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert SettingAudit.objects.count() == 1
