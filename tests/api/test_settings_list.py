"""`GET /api/settings`: every knob with its default, effective value and source; the tiers."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.config import KNOBS
from ctx.permissions import TIER_MESSAGE
from tests.api.settings_support import globex_owner, put, server_admin
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _by_name(body: dict) -> dict:
    return {s["name"]: s for s in body["settings"]}


def test_it_lists_every_knob_with_secrets_masked(cast: Cast, settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_EMBED_API_KEY": "sk-never-shown"}
    status, body = server_admin().get("/api/settings")
    assert status == 200 and body["tenant"] is None
    rows = _by_name(body)
    assert list(rows) == [k.name for k in KNOBS]
    assert rows["CTX_EMBED_API_KEY"]["value"] == "***" and rows["CTX_EMBED_API_KEY"]["secret"]
    assert "sk-never-shown" not in str(body)
    k = rows["CTX_RRF_K"]
    assert (k["default"], k["value"], k["source"], k["live"], k["tenant"]) == (
        60,
        60,
        "default",
        True,
        True,
    )
    assert rows["CTX_EMBED_MODEL"]["live"] is False


def test_it_shows_a_generated_secret_key_as_set_and_masked(cast: Cast, settings: Any) -> None:
    assert settings.CTX["CTX_SECRET_KEY"] == ""  # unset: ctx/settings.py made one in the data dir
    key = _by_name(server_admin().get("/api/settings")[1])["CTX_SECRET_KEY"]
    assert (key["value"], key["source"], key["default"]) == ("***", "generated", "")
    assert settings.SECRET_KEY not in str(key)


def test_a_tenant_owner_sees_its_tenants_effective_values(cast: Cast) -> None:
    admin = server_admin()
    put(admin, "CTX_RRF_K", 20)
    put(cast.owner, "CTX_RRF_K", 25)
    status, body = cast.owner.get("/api/settings")
    assert status == 200 and body["tenant"] == "acme"
    assert _by_name(body)["CTX_RRF_K"]["value"] == 25
    _, server = admin.get("/api/settings")
    assert _by_name(server)["CTX_RRF_K"]["value"] == 20


@pytest.mark.parametrize("who", ["reader", "writer"])
def test_members_get_the_one_403_body(cast: Cast, who: str) -> None:
    member = getattr(cast, who)
    for call in (
        member.get("/api/settings"),
        member.get("/api/settings/CTX_RRF_K"),
        member.get("/api/settings/audit"),
        put(member, "CTX_RRF_K", 20),
    ):
        assert call == (
            403,
            {"success": False, "error": {"code": "forbidden", "message": TIER_MESSAGE}},
        )


def test_another_tenant_answers_like_a_missing_one(cast: Cast) -> None:
    outsider_owner = globex_owner(cast)
    foreign = outsider_owner.get("/api/settings", tenant="acme")
    missing = outsider_owner.get("/api/settings", tenant="no-such-tenant")
    assert foreign == missing and foreign[0] == 404
    assert put(outsider_owner, "CTX_RRF_K", 5, tenant="acme") == put(
        outsider_owner, "CTX_RRF_K", 5, tenant="no-such-tenant"
    )


def test_a_server_admin_reads_and_sets_any_tenant(cast: Cast) -> None:
    admin = server_admin()
    assert put(admin, "CTX_RRF_K", 33, tenant="globex")[0] == 200
    _, body = admin.get("/api/settings", tenant="globex")
    assert body["tenant"] == "globex" and _by_name(body)["CTX_RRF_K"]["source"] == "tenant"
    _, acme = cast.owner.get("/api/settings")
    assert _by_name(acme)["CTX_RRF_K"]["value"] == 60


def test_a_tenant_owner_sees_only_what_it_may_tune(cast: Cast) -> None:
    _, body = cast.owner.get("/api/settings")
    names = set(_by_name(body))
    assert names == {k.name for k in KNOBS if k.tenant}
    assert "CTX_DATA_DIR" not in names and "CTX_LLM_BASE_URL" not in names
    hidden = cast.owner.get("/api/settings/CTX_DATA_DIR")
    assert hidden == cast.owner.get("/api/settings/CTX_NO_SUCH_KNOB") and hidden[0] == 404
