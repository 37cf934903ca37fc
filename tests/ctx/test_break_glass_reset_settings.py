"""`manage.py break_glass reset-settings [KEY]`: drops overrides, audits each, one-line summary."""

from __future__ import annotations

import pytest

from ctx import services as ctx_services
from ctx.models import Tenant
from ctx.overrides.models import SettingAudit, SettingOverride
from secrets.models import SecretAudit
from tests.secrets.test_break_glass import manage, subprocess_database_url

pytestmark = pytest.mark.django_db(transaction=True)  # the subprocess reads committed rows


def _override(key: str, value: object, tenant: Tenant | None = None) -> None:
    SettingOverride.objects.create(key=key, tenant=tenant, value=value, updated_by="test")


def test_it_resets_one_key_everywhere_and_audits_each_row() -> None:
    acme = ctx_services.tenant_create(name="acme")
    _override("CTX_RRF_K", 20)
    _override("CTX_RRF_K", 25, acme)
    _override("CTX_GRAPH_SEEDS", 2)
    out = manage("reset-settings", "CTX_RRF_K", env={"DATABASE_URL": subprocess_database_url()})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == [
        "Removed 2 database override(s) of CTX_RRF_K; defaults and the environment apply."
    ]
    assert list(SettingOverride.objects.values_list("key", flat=True)) == ["CTX_GRAPH_SEEDS"]
    audit = sorted(SettingAudit.objects.values_list("action", "key", "tenant", "old"))
    assert audit == [("reset", "CTX_RRF_K", "", 20), ("reset", "CTX_RRF_K", "acme", 25)]
    assert all(a.startswith("cli") for a in SettingAudit.objects.values_list("actor", flat=True))
    assert SecretAudit.objects.filter(action="reset-settings", name="CTX_RRF_K").exists()


def test_it_resets_everything_without_a_key() -> None:
    _override("CTX_RRF_K", 20)
    _override("CTX_GRAPH_SEEDS", 2)
    out = manage("reset-settings", env={"DATABASE_URL": subprocess_database_url()})
    assert out.returncode == 0, out.stderr
    assert "Removed 2 database override(s) of every setting" in out.stdout
    assert not SettingOverride.objects.exists()
    assert SettingAudit.objects.filter(action="reset").count() == 2


def test_an_unknown_key_fails_and_changes_nothing() -> None:
    _override("CTX_RRF_K", 20)
    out = manage("reset-settings", "CTX_NOPE", env={"DATABASE_URL": subprocess_database_url()})
    assert out.returncode != 0 and "Unknown setting: CTX_NOPE" in out.stderr
    assert SettingOverride.objects.count() == 1 and not SettingAudit.objects.exists()
