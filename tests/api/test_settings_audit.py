"""`GET /api/settings/audit`: every change, newest first; tenant admins see their own only."""

from __future__ import annotations

import pytest

from tests.api.settings_support import globex_owner, put, send, server_admin
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def test_it_lists_changes_newest_first_with_actor_and_values(cast: Cast) -> None:
    admin = server_admin()
    put(admin, "CTX_RRF_K", 20)
    put(cast.owner, "CTX_RRF_K", 25)
    send(cast.owner, "DELETE", "/api/settings/CTX_RRF_K")
    status, body = admin.get("/api/settings/audit")
    assert status == 200 and body["count"] == 3
    got = [(r["action"], r["tenant"], r["old"], r["new"]) for r in body["audit"]]
    assert got == [("unset", "acme", 25, None), ("set", "acme", None, 25), ("set", None, None, 20)]
    assert body["audit"][1]["actor"] == cast.owner_key.prefix


def test_a_tenant_owner_sees_only_its_tenants_rows(cast: Cast) -> None:
    put(server_admin(), "CTX_RRF_K", 20)
    put(cast.owner, "CTX_RRF_K", 25)
    put(globex_owner(cast), "CTX_RRF_K", 26)
    _, body = cast.owner.get("/api/settings/audit")
    assert [(r["tenant"], r["new"]) for r in body["audit"]] == [("acme", 25)]
