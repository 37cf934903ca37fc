"""Resource indicators (RFC 8707): every token is bound to /mcp, and /mcp takes nothing else."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

import secrets
from ctx.oauth import identity
from tests.conftest import Cast
from tests.mcp.live import LiveServer
from tests.oauth.flow import approve, consent_page, exchange, register, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def _mcp(live: LiveServer, token: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(live.mcp, json=INITIALIZE, headers=headers, timeout=10)


def _token(cast: Cast, resource: list[str]) -> str:
    """An access token of the owner's key with the given audience, written straight to the DB."""
    raw = secrets.token_urlsafe(32)
    app = get_application_model().objects.create(
        name="direct", client_type="public", authorization_grant_type="authorization-code"
    )
    get_access_token_model().objects.create(
        user=identity.user_for_key(cast.owner_key),
        application=app,
        token=raw,
        expires=timezone.now() + timedelta(hours=1),
        scope="mcp",
        resource=resource,
    )
    return raw


def test_it_accepts_a_token_bound_to_its_mcp_uri(live: LiveServer, cast: Cast) -> None:
    assert _mcp(live, _token(cast, [live.mcp])).status_code == 200


@pytest.mark.parametrize(
    "resource", [[], ["https://other.example/mcp"], ["http://127.0.0.1:1/mcp"], ["{mcp}/x"]]
)
def test_it_refuses_a_token_without_or_for_another_resource(
    live: LiveServer, cast: Cast, resource: list[str]
) -> None:
    token = _token(cast, [r.format(mcp=live.mcp) for r in resource])
    resp = _mcp(live, token)
    assert resp.status_code == 401
    assert 'error="invalid_token"' in resp.headers["www-authenticate"]


def test_it_binds_a_token_requested_without_resource_to_mcp(live: LiveServer, cast: Cast) -> None:
    client = register(live)
    code = approve(live, client, cast.owner.key or "", resource=None)["code"][0]
    resp = exchange(live, client, code, resource=None)
    assert resp.status_code == 200, resp.text
    token = get_access_token_model().objects.get(user__isnull=False)
    assert token.resource == [live.mcp]
    assert _mcp(live, resp.json()["access_token"]).status_code == 200


def test_it_refuses_to_authorize_for_another_resource(live: LiveServer, cast: Cast) -> None:
    client = register(live)
    resp = consent_page(live, client, resource="https://other.example/mcp")
    assert resp.status_code == 302
    assert "error=invalid_target" in resp.headers["location"]
    assert "state=st4te" in resp.headers["location"]


def test_it_refuses_a_token_request_for_another_resource(live: LiveServer, cast: Cast) -> None:
    client = register(live)
    code = approve(live, client, cast.owner.key or "")["code"][0]
    resp = exchange(live, client, code, resource="https://other.example/mcp")
    assert resp.status_code == 400 and resp.json()["error"] == "invalid_target"


def test_it_stops_a_token_when_its_key_is_revoked(live: LiveServer, cast: Cast) -> None:
    tokens = sign_in(live, cast.owner.key or "")
    assert _mcp(live, tokens["access_token"]).status_code == 200
    cast.owner_key.active = False
    cast.owner_key.save(update_fields=["active"])
    assert _mcp(live, tokens["access_token"]).status_code == 401
