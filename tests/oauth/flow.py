"""The OAuth steps over plain HTTP, one at a time, for tests that poke at a single step.

The full flow with the MCP SDK as the client is in test_flow.py; these helpers register a
client, walk the consent page like a browser and exchange codes, so a test can bend one
parameter (the resource, a refresh token) and see what the server does.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

import secrets
from tests.mcp.live import LiveServer
from tests.support.oauth_session import REDIRECT_URI, form_fields


@dataclass
class Client:
    client_id: str
    redirect_uri: str
    verifier: str = ""


def register(live: LiveServer, client_name: str = "test", redirect: str = REDIRECT_URI) -> Client:
    body = {
        "client_name": client_name,
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    }
    resp = httpx.post(live.url + "/register", json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    return Client(resp.json()["client_id"], redirect)


def authorize_url(live: LiveServer, client: Client, resource: str | None) -> str:
    client.verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(client.verifier.encode()).digest()
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "state": "st4te",
        "scope": "mcp",
        "code_challenge": base64.urlsafe_b64encode(digest).rstrip(b"=").decode(),
        "code_challenge_method": "S256",
    }
    if resource is not None:
        params["resource"] = resource
    return f"{live.url}/authorize?{urlencode(params)}"


def consent_page(live: LiveServer, client: Client, resource: str | None = "") -> httpx.Response:
    target = live.mcp if resource == "" else resource
    return httpx.get(authorize_url(live, client, target), timeout=10)


def approve(
    live: LiveServer, client: Client, api_key: str, resource: str | None = "", allow: bool = True
) -> dict[str, list[str]]:
    """Walk the consent page like a browser; return the redirect's query parameters."""
    target = live.mcp if resource == "" else resource
    url = authorize_url(live, client, target)
    with httpx.Client(timeout=10) as browser:  # keeps the CSRF cookie
        page = browser.get(url)
        assert page.status_code == 200, page.text
        data = {**form_fields(page.text), "api_key": api_key}
        data["allow" if allow else "deny"] = "Authorize" if allow else "1"
        answer = browser.post(url, data=data, headers={"Referer": url})
    assert answer.status_code == 302, answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)


def token(live: LiveServer, **form: str) -> httpx.Response:
    return httpx.post(live.url + "/token", data=form, timeout=10)


def exchange(live: LiveServer, client: Client, code: str, resource: str | None = "") -> Any:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": client.redirect_uri,
        "client_id": client.client_id,
        "code_verifier": client.verifier,
    }
    if resource is not None:
        form["resource"] = live.mcp if resource == "" else resource
    return token(live, **form)


def sign_in(live: LiveServer, api_key: str) -> dict[str, Any]:
    """Register, approve with `api_key`, exchange: the token response as JSON."""
    client = register(live)
    code = approve(live, client, api_key)["code"][0]
    resp = exchange(live, client, code)
    assert resp.status_code == 200, resp.text
    return {**resp.json(), "client_id": client.client_id}
