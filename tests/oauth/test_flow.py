"""The whole OAuth 2.1 flow with the Python MCP SDK as the client, against a live server."""

from __future__ import annotations

import asyncio

import pytest
from oauth2_provider.models import get_access_token_model

from ctx.models import Block
from ctx.oauth.models import ApiKeyUser
from tests.conftest import Cast
from tests.mcp.live import LiveServer
from tests.support.oauth_session import Transcript, run_session

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    *("query", "store", "search", "get", "recent", "update", "delete", "categories", "stats"),
    *("recent_sessions", "session_detail", "search_sessions", "facts"),
    *("index", "index_search"),
    *("save_decision", "save_error_solution", "save_insight"),
    *("get_preferences", "list_profiles", "record_signal"),
    *("history", "get_context", "changes"),
    *("blob_search", "blob_get"),
}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_it_runs_register_consent_token_and_tools(live: LiveServer, cast: Cast, mode: str) -> None:
    transcript = Transcript()
    storage = asyncio.run(run_session(live.url, cast.owner.key or "", transcript, mode=mode))
    text = "\n".join(transcript.lines)
    assert set(text.split("tools: ")[1].split("\n")[0].split(", ")) == TOOLS
    assert "store -> Created block" in text
    assert "MCP session check" in text.split("query ->")[1]
    block = Block.objects.get(title="MCP session check")
    assert block.scope.name == "acme:main"  # the owner key's home scope: the key's principal
    token = get_access_token_model().objects.get(user__isnull=False)  # not the DCR token
    assert token.resource == [live.mcp] and token.scope == "mcp"
    assert ApiKeyUser.objects.get(user=token.user).api_key == cast.owner_key
    assert storage.tokens is not None and storage.tokens.refresh_token


def test_it_shows_client_redirect_host_and_scope_on_the_consent_page(
    live: LiveServer, cast: Cast
) -> None:
    from tests.oauth.flow import consent_page, register

    client = register(
        live, client_name="Claude", redirect="https://claude.ai/api/mcp/auth_callback"
    )
    page = consent_page(live, client).text
    assert "Claude" in page and "claude.ai" in page
    assert "Use ctx through MCP" in page and 'name="api_key"' in page
