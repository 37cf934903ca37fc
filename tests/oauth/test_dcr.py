"""Dynamic client registration: modes, rate limit, client cap, redirect and grant rules."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_application_model

from ctx import services
from ctx.oauth import dcr
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

CLAUDE = {"client_name": "Claude", "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}


@pytest.fixture(autouse=True)
def fast_hasher(settings: Any) -> None:
    # Confidential clients' secrets are hashed like passwords (PBKDF2, most of a second each).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _register(body: dict[str, Any] = CLAUDE, key: str | None = None, ip: str = "") -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    client = Client(REMOTE_ADDR=ip or str(uuid.uuid4()))  # a fresh rate-limit bucket per call
    resp = client.post(
        "/register", data=json.dumps(body), content_type="application/json", headers=headers
    )
    return resp.status_code, json.loads(resp.content or b"{}")


def _mode(settings: Any, mode: str, **extra: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_OAUTH_DCR_MODE": mode, **extra}


def _admin_key(cast: Cast) -> str:
    return services.key_create(tenant=cast.acme, name="admin", home="acme:main", is_admin=True)[1]


def test_it_registers_claude_in_open_mode(settings: Any, cast: Cast) -> None:
    _mode(settings, "open")
    status, body = _register()
    assert status == 201 and body["client_name"] == "Claude"
    assert body["redirect_uris"] == CLAUDE["redirect_uris"]
    app = get_application_model().objects.get(client_id=body["client_id"])
    assert app.registration_source == "dcr" and app.user is None


def test_it_needs_an_admin_key_in_admin_mode(settings: Any, cast: Cast) -> None:
    _mode(settings, "admin")
    assert _register()[0] == 401
    assert _register(key=cast.owner.key)[0] == 401  # an owner key is not an admin key
    assert _register(key=_admin_key(cast))[0] == 201


def test_it_refuses_everything_when_off(settings: Any, cast: Cast) -> None:
    _mode(settings, "off")
    assert _register(key=_admin_key(cast))[0] == 404
    meta = json.loads(Client().get("/.well-known/oauth-authorization-server").content)
    assert "registration_endpoint" not in meta


def test_it_rate_limits_per_client_ip(settings: Any, cast: Cast, monkeypatch: Any) -> None:
    _mode(settings, "open")
    monkeypatch.setattr(dcr, "RATE_LIMIT", 2)
    ip = str(uuid.uuid4())  # the counter lives in Redis: a name no earlier run has used
    assert [_register(ip=ip)[0] for _ in range(3)] == [201, 201, 429]
    assert _register()[0] == 201  # another address is not affected


def test_it_caps_clients_and_prunes_unused_old_ones(settings: Any, cast: Cast) -> None:
    _mode(settings, "open", CTX_OAUTH_MAX_CLIENTS=2)
    first, second = _register()[1], _register()[1]
    assert _register()[0] == 403
    Application = get_application_model()
    old = timezone.now() - dcr.STALE_AFTER - timedelta(hours=1)
    Application.objects.filter(client_id=first["client_id"]).update(created=old)
    assert _register()[0] == 201
    assert not Application.objects.filter(client_id=first["client_id"]).exists()
    assert Application.objects.filter(client_id=second["client_id"]).exists()


@pytest.mark.parametrize(
    "uri,allowed",
    [
        ("https://claude.ai/api/mcp/auth_callback", True),
        ("https://claude.com/api/mcp/auth_callback", True),
        ("http://localhost:53682/callback", True),
        ("http://127.0.0.1/callback", True),
        ("http://[::1]:8080/cb", True),
        ("https://claude.ai/api/mcp/auth_callback/extra", False),
        ("https://evil.example/callback", False),
        ("http://evil.example/callback", False),
        ("myapp://callback", False),
    ],
)
def test_it_allows_claude_callbacks_and_loopback_redirects(
    settings: Any, cast: Cast, uri: str, allowed: bool
) -> None:
    _mode(settings, "open")
    status, body = _register({"redirect_uris": [uri]})
    assert (status == 201) is allowed
    if not allowed:
        assert body["error"] == "invalid_redirect_uri"


def test_it_lets_an_admin_register_any_https_redirect(settings: Any, cast: Cast) -> None:
    _mode(settings, "open")
    body = {"redirect_uris": ["https://tools.example/callback"]}
    assert _register(body, key=_admin_key(cast))[0] == 201


def test_it_registers_only_the_code_flow(settings: Any, cast: Cast) -> None:
    _mode(settings, "open")
    body = {**CLAUDE, "grant_types": ["client_credentials"]}
    status, answer = _register(body)
    assert status == 400 and answer["error"] == "invalid_client_metadata"


@pytest.mark.parametrize("types", [["token"], ["code", "token"], "code"])
def test_it_refuses_response_types_other_than_code(
    settings: Any, cast: Cast, types: object
) -> None:
    _mode(settings, "open")
    status, answer = _register({**CLAUDE, "response_types": types})
    assert status == 400 and answer["error"] == "invalid_client_metadata"
    assert _register({**CLAUDE, "response_types": ["code"]})[0] == 201
