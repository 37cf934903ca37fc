"""System checks: ctx.E020 (secrets but no key) and ctx.E021 (unusable key settings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import LazySettings

from secrets.apps import check_key_present, check_key_settings
from tests.conftest import Cast
from tests.secrets.conftest import KEY_A, make_secret, use_keys


@pytest.mark.django_db
def test_it_requires_a_key_once_a_secret_exists(cast: Cast, settings: LazySettings) -> None:
    use_keys(settings, "")
    assert check_key_present(None, databases=["default"]) == []  # no secrets yet: a key is optional
    use_keys(settings, KEY_A)
    make_secret(cast.owner_key, "db")
    assert check_key_present(None, databases=["default"]) == []
    use_keys(settings, "")
    assert [e.id for e in check_key_present(None, databases=["default"])] == ["ctx.E020"]


def test_it_reports_an_unusable_key_file(settings: LazySettings, tmp_path: Path) -> None:
    bad = tmp_path / "key"
    bad.write_text("not-a-key-but-maybe-a-password")
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY": "", "CTX_SECRETS_KEY_FILE": str(bad)}
    errors = check_key_settings(None)
    assert [e.id for e in errors] == ["ctx.E021"] and "maybe-a-password" not in errors[0].msg
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY_FILE": str(tmp_path / "missing")}
    assert "cannot read" in check_key_settings(None)[0].msg
    bad.write_text(KEY_A)
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY_FILE": str(bad)}
    assert check_key_settings(None) == []


@pytest.mark.django_db
def test_it_runs_the_key_check_with_the_database_checks(cast: Cast, settings: LazySettings) -> None:
    from django.core.checks import run_checks

    make_secret(cast.owner_key, "db")
    use_keys(settings, "")
    ids = {e.id for e in run_checks(databases=["default"])}
    assert "ctx.E020" in ids
    assert "ctx.E020" not in {e.id for e in run_checks()}  # static checks stay database-free
