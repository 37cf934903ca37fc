"""Keys, an HTTP client that also PUTs and DELETEs, and a secret-making helper."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import LazySettings

from ctx.models import ApiKey
from ctx.principal import Principal
from ctx.selectors import principal_from_key
from secrets import crypto, services
from tests.conftest import Api

KEY_A = "a1" * 32
KEY_B = "b2" * 32
KEY_C = "c3" * 32
VALUE = "sk-live-Zq8xV3-never-in-any-response"


def version(hex_key: str) -> str:
    return crypto.fingerprint(bytes.fromhex(hex_key))


def use_keys(settings: LazySettings, current: str = "", previous: str = "") -> None:
    """Swap the master keys; pytest-django's `settings` restores CTX after the test."""
    settings.CTX = {
        **settings.CTX,
        "CTX_SECRETS_KEY": current,
        "CTX_SECRETS_KEY_FILE": "",
        "CTX_SECRETS_KEY_PREV": previous,
        "CTX_SECRETS_KEY_PREV_FILE": "",
    }


@pytest.fixture(autouse=True)
def key_a(settings: LazySettings) -> None:
    use_keys(settings, KEY_A)


def send(api: Api, method: str, path: str, body: Any = None, **params: Any) -> tuple[int, Any]:
    """PUT/DELETE with the key of `api`; returns (status, parsed body)."""
    if params:
        path += "?" + "&".join(f"{k}={v}" for k, v in params.items())
    data = json.dumps(body) if body is not None else ""
    call = getattr(api.client, method.lower())
    resp = call(path, data=data, content_type="application/json", headers=api._headers())
    try:
        return resp.status_code, json.loads(resp.content)
    except ValueError:
        return resp.status_code, resp.content


def principal(key: ApiKey) -> Principal:
    return principal_from_key(ApiKey.objects.select_related("tenant").get(pk=key.pk))


def make_secret(key: ApiKey, name: str, value: str = VALUE, scope: str | None = None) -> Any:
    return services.secret_put(principal=principal(key), name=name, scope=scope, value=value)
