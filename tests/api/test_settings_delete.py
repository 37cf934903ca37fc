"""`DELETE /api/settings/{key}`: the override goes, the next layer shows through; audited."""

from __future__ import annotations

import pytest

from ctx.overrides.models import SettingAudit, SettingOverride
from tests.api.settings_support import put, send, server_admin, setting
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def test_unsetting_a_tenant_override_reveals_the_server_one(cast: Cast) -> None:
    admin = server_admin()
    put(admin, "CTX_GRAPH_BOOST", 0.3)
    put(cast.owner, "CTX_GRAPH_BOOST", 0.9)
    status, body = send(cast.owner, "DELETE", "/api/settings/CTX_GRAPH_BOOST")
    assert status == 200 and body["action"] == "unset"
    assert (body["setting"]["value"], body["setting"]["source"]) == (0.3, "database")
    row = SettingAudit.objects.latest("id")
    assert (row.action, row.tenant, row.old, row.new) == ("unset", "acme", 0.9, None)
    send(admin, "DELETE", "/api/settings/CTX_GRAPH_BOOST")
    assert setting(admin, "CTX_GRAPH_BOOST")["source"] == "default"
    assert not SettingOverride.objects.exists()


def test_unsetting_what_is_not_there_is_a_404(cast: Cast) -> None:
    status, body = send(server_admin(), "DELETE", "/api/settings/CTX_RRF_K")
    assert status == 404 and body["error"]["code"] == "not_found"
    assert not SettingAudit.objects.exists()


def test_a_member_cannot_unset(cast: Cast) -> None:
    put(cast.owner, "CTX_RRF_K", 20)
    status, _ = send(cast.writer, "DELETE", "/api/settings/CTX_RRF_K")
    assert status == 403 and SettingOverride.objects.count() == 1
