"""RFC 7592 client management (`/o/register/<client_id>/` with the registration access token):
an update obeys the rules registration does, so it cannot point a client's codes elsewhere."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from django.test import Client as DjangoClient
from oauth2_provider.models import get_application_model

from tests.conftest import Cast
from tests.mcp.live import LiveServer
from tests.oauth.flow import Client, authorize_url

pytestmark = pytest.mark.django_db(transaction=True)

LOOPBACK = "http://127.0.0.1:53682/callback"


def _register(live: LiveServer, **extra: Any) -> dict[str, Any]:
    body = {
        "client_name": "cli",
        "redirect_uris": [LOOPBACK],
        "token_endpoint_auth_method": "none",
        **extra,
    }
    resp = httpx.post(live.url + "/register", json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def _update(live: LiveServer, client: dict[str, Any], **metadata: Any) -> httpx.Response:
    body = {"client_name": "cli", "token_endpoint_auth_method": "none", **metadata}
    return httpx.put(
        client["registration_client_uri"],
        json=body,
        headers={"Authorization": f"Bearer {client['registration_access_token']}"},
        timeout=10,
    )


def _redirects(client_id: str) -> list[str]:
    app = get_application_model().objects.get(client_id=client_id)
    return list(app.redirect_uris.split())


@pytest.mark.parametrize(
    "uri", ["http://evil.example/cb", "https://user:pw@evil.example/cb", "https://evil.example/cb"]
)
def test_it_refuses_an_update_to_a_redirect_registration_refuses(
    live: LiveServer, uri: str
) -> None:
    client = _register(live)
    resp = _update(live, client, redirect_uris=[LOOPBACK, uri])
    assert resp.status_code == 400 and resp.json()["error"] == "invalid_redirect_uri"
    assert _redirects(client["client_id"]) == [LOOPBACK]


def test_it_sends_no_code_to_a_redirect_an_update_tried_to_add(
    live: LiveServer, cast: Cast
) -> None:
    client = _register(live)
    _update(live, client, redirect_uris=["http://evil.example/cb"])
    evil = Client(client["client_id"], "http://evil.example/cb")
    page = httpx.get(authorize_url(live, evil, live.mcp), timeout=10)
    assert page.status_code == 400  # the toolkit's invalid redirect page, no form to approve
    assert "evil.example" not in page.headers.get("location", "")


def test_it_applies_an_update_within_the_rules(live: LiveServer) -> None:
    client = _register(live)
    other = "http://localhost:8123/cb"
    resp = _update(live, client, redirect_uris=[other], client_name="renamed")
    assert resp.status_code == 200, resp.text
    assert _redirects(client["client_id"]) == [other]
    assert resp.json()["client_name"] == "renamed"


def test_it_keeps_a_redirect_the_client_already_has(live: LiveServer) -> None:
    client = _register(live)
    admin_added = "https://tools.example/callback"  # as an admin may register
    app = get_application_model().objects.get(client_id=client["client_id"])
    app.redirect_uris = f"{LOOPBACK} {admin_added}"
    app.save(update_fields=["redirect_uris"])
    resp = _update(live, client, redirect_uris=[admin_added], client_name="kept")
    assert resp.status_code == 200, resp.text
    assert _redirects(client["client_id"]) == [admin_added]


def test_it_refuses_an_update_to_other_grants_or_the_token_response_type(
    live: LiveServer,
) -> None:
    first, second = _register(live), _register(live)
    grants = _update(live, first, redirect_uris=[LOOPBACK], grant_types=["client_credentials"])
    implicit = _update(live, second, redirect_uris=[LOOPBACK], response_types=["token"])
    assert [grants.status_code, implicit.status_code] == [400, 400]
    assert implicit.json()["error"] == "invalid_client_metadata"


def test_it_answers_404_when_registration_is_off(live: LiveServer, settings: Any) -> None:
    client = _register(live)
    settings.CTX = {**settings.CTX, "CTX_OAUTH_DCR_MODE": "off"}
    token = {"Authorization": f"Bearer {client['registration_access_token']}"}
    path = f"/o/register/{client['client_id']}/"
    assert DjangoClient().get(path, headers=token).status_code == 404
    assert DjangoClient().delete(path, headers=token).status_code == 404
    assert get_application_model().objects.filter(client_id=client["client_id"]).exists()
