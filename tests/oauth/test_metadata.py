"""Discovery documents (RFC 8414, RFC 9728) and the root aliases, over real HTTP."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_publishes_authorization_server_metadata_at_the_root(live: LiveServer) -> None:
    meta = httpx.get(live.url + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == live.url
    assert meta["authorization_endpoint"] == live.url + "/o/authorize/"
    assert meta["token_endpoint"] == live.url + "/o/token/"
    assert meta["registration_endpoint"] == live.url + "/o/register/"
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["response_types_supported"] == ["code"]
    assert meta["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert "none" in meta["token_endpoint_auth_methods_supported"]
    assert meta["scopes_supported"] == ["mcp"]
    assert meta["authorization_response_iss_parameter_supported"] is True
    assert meta["client_id_metadata_document_supported"] is False


@pytest.mark.parametrize("path", ["", "/mcp"])
def test_it_publishes_protected_resource_metadata(live: LiveServer, path: str) -> None:
    meta = httpx.get(live.url + "/.well-known/oauth-protected-resource" + path).json()
    assert meta["resource"] == live.mcp
    assert meta["authorization_servers"] == [live.url]
    assert meta["scopes_supported"] == ["mcp"] and meta["bearer_methods_supported"] == ["header"]


def test_it_has_no_metadata_for_other_resources(live: LiveServer) -> None:
    assert httpx.get(live.url + "/.well-known/oauth-protected-resource/api").status_code == 404


@pytest.mark.parametrize("path", ["/token", "/o/token", "/o/token/"])
def test_it_answers_the_token_endpoint_with_and_without_slash(
    live: LiveServer, cast: Cast, path: str
) -> None:
    resp = httpx.post(live.url + path, data={"grant_type": "authorization_code", "code": "x"})
    assert resp.status_code in (400, 401)  # the token view itself: no redirect, no CSRF failure
    assert resp.json()["error"] in {"invalid_client", "invalid_request", "invalid_grant"}


@pytest.mark.parametrize("path", ["/register", "/o/register", "/o/register/"])
def test_it_answers_registration_with_and_without_slash(
    live: LiveServer, cast: Cast, path: str
) -> None:
    body = {"redirect_uris": ["https://claude.ai/api/mcp/auth_callback"], "client_name": "Claude"}
    resp = httpx.post(live.url + path, json=body)
    assert resp.status_code == 201
    assert resp.json()["registration_client_uri"].startswith(live.url + "/o/register/")


@pytest.mark.parametrize("path", ["/authorize", "/o/authorize", "/o/authorize/"])
def test_it_answers_authorize_with_and_without_slash(live: LiveServer, path: str) -> None:
    resp = httpx.get(live.url + path, params={"client_id": "nope", "response_type": "code"})
    assert resp.status_code == 400 and "cannot continue" in resp.text  # the view, not a 404
