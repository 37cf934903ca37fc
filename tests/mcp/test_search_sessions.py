"""MCP tool `search_sessions` (the lexical arms find new windows before they are embedded)."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call
from tests.mcp.sessions_support import conversation, put

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def history(cast: Cast) -> Cast:
    put(
        cast.owner,
        conversation(
            "deploy",
            ["The deploy failed with a migration lock timeout", "Raise lock_timeout first"],
            "2026-03-02",
        ),
        conversation("garden", ["My tomatoes have blight", "Remove the leaves"], "2026-02-10"),
    )
    return cast


def test_it_finds_the_session_of_a_topic(live: LiveServer, history: Cast) -> None:
    args = {"query": "migration lock timeout"}
    data, text, error = call(live, history.owner.key or "", "search_sessions", args)
    assert not error and data["sessions"][0]["session"]["external_id"] == "deploy"
    assert data["sessions"][0]["windows"][0]["first_index"] == 0
    assert "migration lock timeout" in text and "session_detail" in text


def test_it_never_finds_another_tenants_sessions(live: LiveServer, history: Cast) -> None:
    data, _, error = call(live, history.outsider.key or "", "search_sessions", {"query": "blight"})
    assert not error and data["sessions"] == []
    assert_unreadable(live, history.outsider.key or "", "search_sessions", {"query": "blight"})
