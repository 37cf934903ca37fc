"""`PUT /api/settings/{key}`: validated overrides, precedence, the environment lock, audit."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.overrides import resolver
from ctx.overrides.models import SettingAudit, SettingOverride
from tests.api.settings_support import put, send, server_admin, setting
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def test_it_overrides_a_live_knob_server_wide_and_audits_it(cast: Cast) -> None:
    admin = server_admin()
    status, body = put(admin, "CTX_RRF_K", 20)
    assert status == 200, body
    assert body["settings"][0]["value"] == 20 and body["settings"][0]["source"] == "database"
    assert setting(admin, "CTX_RRF_K")["value"] == 20
    row = SettingAudit.objects.get(key="CTX_RRF_K")
    assert (row.action, row.old, row.new, row.tenant) == ("set", None, 20, "")
    put(admin, "CTX_RRF_K", 30)
    latest = SettingAudit.objects.latest("id")
    assert (latest.old, latest.new) == (20, 30)


def test_tenant_beats_database_beats_default(cast: Cast) -> None:
    admin = server_admin()
    assert setting(admin, "CTX_RERANK_TOP_N")["value"] == 30
    put(admin, "CTX_RERANK_TOP_N", 40)
    status, _ = put(cast.owner, "CTX_RERANK_TOP_N", 50)  # the owner's own tenant
    assert status == 200
    acme = setting(cast.owner, "CTX_RERANK_TOP_N")
    assert (acme["value"], acme["source"]) == (50, "tenant")
    globex = setting(admin, "CTX_RERANK_TOP_N", tenant="globex")
    assert (globex["value"], globex["source"]) == (40, "database")
    assert resolver.value("CTX_RERANK_TOP_N", cast.acme.pk) == 50
    assert resolver.value("CTX_RERANK_TOP_N", cast.globex.pk) == 40
    assert resolver.value("CTX_RERANK_TOP_N") == 40


def test_a_value_pinned_in_the_environment_wins_and_cannot_be_overridden(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    admin = server_admin()
    put(admin, "CTX_RRF_K", 20)
    monkeypatch.setenv("CTX_RRF_K", "75")
    settings.CTX = {**settings.CTX, "CTX_RRF_K": 75}
    shown = setting(admin, "CTX_RRF_K")
    assert (shown["value"], shown["source"]) == (75, "env")
    status, body = put(admin, "CTX_RRF_K", 10)
    assert status == 400
    assert body["error"]["details"]["findings"] == [
        "CTX_RRF_K is set in the environment, which wins over overrides."
    ]


def test_a_knob_that_needs_a_restart_is_refused(cast: Cast) -> None:
    status, body = put(server_admin(), "CTX_EMBED_MODEL", "other-model")
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert "needs a restart: set it in the environment" in body["error"]["message"]
    assert not SettingOverride.objects.exists() and not SettingAudit.objects.exists()


def test_it_lists_every_finding_at_once_and_changes_nothing(cast: Cast) -> None:
    body_in = {
        "values": {
            "CTX_RRF_K": 0,
            "CTX_RRF_W_SEMANTIC": "heavy",
            "CTX_QUERY_STAGES": ["graph", "nope", "bogus"],
            "CTX_RERANK_TOP_N": 10,
        }
    }
    status, body = send(server_admin(), "PUT", "/api/settings", body_in)
    assert status == 400
    assert body["error"]["details"]["findings"] == [
        "CTX_RRF_K=0: must be between 1 and 1000",
        "CTX_RRF_W_SEMANTIC='heavy': expected a number",
        "CTX_QUERY_STAGES: unknown stage 'nope'",
        "CTX_QUERY_STAGES: unknown stage 'bogus'",
    ]
    assert not SettingOverride.objects.exists()  # the valid one was not written either


def test_a_tenant_owner_cannot_override_a_server_only_knob(cast: Cast) -> None:
    status, body = put(cast.owner, "CTX_RERANK_BUDGET_MS", 500)
    assert status == 400
    assert body["error"]["details"]["findings"] == [
        "CTX_RERANK_BUDGET_MS cannot be overridden per tenant."
    ]


def test_an_unknown_key_is_a_finding_and_reads_as_404(cast: Cast) -> None:
    status, body = put(server_admin(), "CTX_NOPE", 1)
    assert status == 400 and body["error"]["details"]["findings"] == ["CTX_NOPE: unknown setting."]
    assert server_admin().get("/api/settings/CTX_NOPE")[0] == 404
