"""The start-up config record: every setting with its origin, secrets as fingerprints, and a
warning for each doubtful URL setting."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.core.management import call_command

from ctx import config
from ctx.config import url_findings
from tests.api.settings_support import put, server_admin

pytestmark = pytest.mark.django_db

SECRET = "sk-live-this-must-never-be-logged"


def _record(caplog: pytest.LogCaptureFixture) -> tuple[dict[str, Any], list[str]]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ctx.config"):
        call_command("config", "--record")
    records = [r for r in caplog.records if r.getMessage().startswith("config record ")]
    assert len(records) == 1  # one record, not a line per setting
    body = json.loads(records[0].getMessage().removeprefix("config record "))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    return body, warnings


def test_every_setting_with_its_origin_and_secrets_only_fingerprinted(
    caplog: pytest.LogCaptureFixture, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTX_LLM_API_KEY", SECRET)
    settings.CTX = {**settings.CTX, "CTX_LLM_API_KEY": SECRET}
    assert put(server_admin(), "CTX_RRF_K", 40)[0] == 200
    record, _ = _record(caplog)
    assert set(record) == {k.name for k in config.KNOBS}
    assert record["CTX_LLM_API_KEY"] == {
        "value": config.fingerprint(SECRET),
        "origin": "environment",
    }
    assert record["CTX_RRF_K"] == {"value": 40, "origin": "database"}
    assert record["CTX_DREAM_BATCH"]["origin"] == "default"
    assert SECRET not in caplog.text and SECRET[:12] not in caplog.text


def test_doubtful_urls_are_warned_about_in_the_log(
    caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_LLM_BASE_URL": "http://bob:hunter2@llm.local:8080/v1/"}
    _, warnings = _record(caplog)
    assert any("CTX_LLM_BASE_URL holds credentials" in w for w in warnings)
    assert any("CTX_LLM_BASE_URL ends with '/'" in w for w in warnings)
    assert "hunter2" not in "".join(warnings)


def test_url_findings_name_each_form_and_leave_good_urls_alone() -> None:
    assert url_findings({"CTX_LLM_BASE_URL": "http://127.0.0.1:11434"}) == []
    assert url_findings({"DATABASE_URL": "postgresql://u:p@db/ctx"}) == []  # expected there
    assert url_findings({"CTX_EMBED_BASE_URL": "https://e.example/"}) == [
        "CTX_EMBED_BASE_URL ends with '/': tolerated, the slash is dropped."
    ]
    assert url_findings({"CTX_PUBLIC_URL": "https://ctx.example.com/app"}) == [
        "CTX_PUBLIC_URL has a path: only its origin (scheme://host[:port]) is used."
    ]
    assert url_findings({"CTX_LLM_FALLBACK_BASE_URL": "ftp://x"}) == [
        "CTX_LLM_FALLBACK_BASE_URL should start with http:// or https://."
    ]
