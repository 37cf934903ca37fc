"""Credential knobs name a sealed secret; the value is opened at use time and never stored,
and the secret cannot be deleted while a setting refers to it (409)."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.overrides import resolver
from ctx.overrides.models import SettingAudit, SettingOverride
from retrieval.rerank import get_backend
from tests.api.settings_support import put, send, server_admin_key, setting
from tests.conftest import Cast
from tests.secrets.conftest import VALUE, key_a, make_secret  # noqa: F401 - key_a: autouse master key

pytestmark = pytest.mark.django_db


def test_a_credential_is_set_by_secret_name_and_opened_at_use(cast: Cast) -> None:
    root, admin = server_admin_key()
    make_secret(root, "rerank-token")
    status, body = put(admin, "CTX_RERANK_API_KEY", {"secret": "rerank-token"})
    assert status == 200, body
    shown = setting(admin, "CTX_RERANK_API_KEY")
    assert shown["value"] == "***" and shown["secret_ref"] == "ops/ops:main/rerank-token"
    stored = [SettingOverride.objects.get().value, *SettingAudit.objects.values_list("new")]
    assert VALUE not in str(stored)
    assert resolver.value("CTX_RERANK_API_KEY") == VALUE  # opened where it is used


def test_only_a_secret_the_caller_can_read_may_be_named(cast: Cast) -> None:
    make_secret(cast.owner_key, "acme-token")  # in acme:main, not readable by ops' admin
    _, admin = server_admin_key()
    status, body = put(admin, "CTX_RERANK_API_KEY", {"secret": "acme-token"})
    assert status == 400
    assert body["error"]["details"]["findings"] == [
        "CTX_RERANK_API_KEY: no secret 'acme-token' that this caller can read."
    ]


def test_a_tenant_owner_cannot_set_a_credential(cast: Cast) -> None:
    make_secret(cast.owner_key, "acme-token")
    status, body = put(cast.owner, "CTX_RERANK_API_KEY", {"secret": "acme-token"})
    assert status == 400
    assert "cannot be overridden per tenant" in body["error"]["message"]


def test_a_plaintext_credential_is_refused_without_echoing_it(cast: Cast) -> None:
    _, admin = server_admin_key()
    status, body = put(admin, "CTX_LLM_API_KEY", "sk-plaintext-123")
    assert status == 400 and '{"secret": "NAME"}' in body["error"]["message"]
    assert "sk-plaintext-123" not in str(body)
    assert not SettingOverride.objects.exists()


def test_a_referenced_secret_cannot_be_deleted(cast: Cast) -> None:
    root, admin = server_admin_key()
    make_secret(root, "llm-key")
    assert put(admin, "CTX_LLM_API_KEY", {"secret": "llm-key"})[0] == 200
    status, body = send(admin, "DELETE", "/api/secrets/llm-key")
    assert status == 409
    assert body["error"]["details"] == {"referenced_by": ["setting:CTX_LLM_API_KEY"]}
    assert send(admin, "DELETE", "/api/settings/CTX_LLM_API_KEY")[0] == 200
    assert send(admin, "DELETE", "/api/secrets/llm-key")[0] == 200


def test_the_rerank_backend_uses_the_referenced_token(cast: Cast, settings: Any) -> None:
    settings.CTX = {
        **settings.CTX,
        "CTX_RERANK_BACKEND": "http",
        "CTX_RERANK_URL": "http://127.0.0.1:9/v1/rerank",
    }
    root, admin = server_admin_key()
    make_secret(root, "tok")
    put(admin, "CTX_RERANK_API_KEY", {"secret": "tok"})
    backend = get_backend()
    assert backend is not None and getattr(backend, "api_key", None) == VALUE
