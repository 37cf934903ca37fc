"""The sign-in and consent page, walked like a browser against the live server."""

from __future__ import annotations

import httpx
import pytest
from oauth2_provider.models import get_access_token_model, get_grant_model

from tests.conftest import Cast
from tests.mcp.live import LiveServer
from tests.oauth.flow import approve, authorize_url, register
from tests.support.oauth_session import form_fields

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_names_the_client_the_redirect_host_and_the_scope(live: LiveServer) -> None:
    client = register(live, "Claude Code (ctx)", "http://localhost:53682/callback")
    page = httpx.get(authorize_url(live, client, live.mcp))
    assert page.status_code == 200
    assert "Claude Code (ctx)" in page.text and "localhost:53682" in page.text
    assert "Use ctx through MCP" in page.text and live.mcp in page.text
    assert page.headers["x-frame-options"] == "DENY"  # no clickjacking of the Approve button
    assert "no-cache" in page.headers["cache-control"]


def test_it_redirects_with_access_denied_when_the_person_denies(
    live: LiveServer, cast: Cast
) -> None:
    client = register(live)
    query = approve(live, client, "", allow=False)
    assert query["error"] == ["access_denied"] and query["state"] == ["st4te"]
    assert get_grant_model().objects.count() == 0


def test_it_asks_again_for_a_wrong_or_revoked_key(live: LiveServer, cast: Cast) -> None:
    client = register(live)
    url = authorize_url(live, client, live.mcp)
    cast.owner_key.active = False
    cast.owner_key.save(update_fields=["active"])
    for key in ("ctx_nope", cast.owner.key or ""):
        with httpx.Client() as browser:
            data = {**form_fields(browser.get(url).text), "api_key": key, "allow": "Authorize"}
            answer = browser.post(url, data=data, headers={"Referer": url})
        assert answer.status_code == 200 and "not an active ctx API key" in answer.text
    assert get_grant_model().objects.count() == 0


def test_it_refuses_a_post_without_the_csrf_token(live: LiveServer, cast: Cast) -> None:
    client = register(live)
    url = authorize_url(live, client, live.mcp)
    with httpx.Client() as browser:
        data = form_fields(browser.get(url).text)
        data.pop("csrfmiddlewaretoken")
        answer = browser.post(url, data={**data, "api_key": cast.owner.key, "allow": "1"})
    assert answer.status_code == 403
    assert get_access_token_model().objects.filter(user__isnull=False).count() == 0


def test_it_includes_the_issuer_in_the_redirect(live: LiveServer, cast: Cast) -> None:
    query = approve(live, register(live), cast.owner.key or "")
    assert query["iss"] == [live.url] and query["state"] == ["st4te"]  # RFC 9207


@pytest.mark.parametrize("method", [None, "plain"])
def test_it_requires_pkce_with_s256(live: LiveServer, method: str | None) -> None:
    client = register(live)
    url = authorize_url(live, client, live.mcp)
    if method is None:
        url = url.split("&code_challenge=")[0]  # no challenge at all
    else:
        url = url.replace("code_challenge_method=S256", f"code_challenge_method={method}")
    resp = httpx.get(url)
    assert resp.status_code == 302 and "error=invalid_request" in resp.headers["location"]
