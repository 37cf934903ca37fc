"""MCP tool `recent_sessions`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call, tools
from tests.mcp.sessions_support import conversation, put

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def history(cast: Cast) -> Cast:
    put(
        cast.owner,
        conversation(
            "cc-1",
            ["Add a cart total", "Done: cart.py sums items"],
            "2026-03-01",
            project_root="/home/dev/shop-app",
            git_branch="cart",
        ),
        conversation(
            "cx-1",
            ["Fix the login redirect", "Changed auth.ts"],
            "2026-03-03",
            tool="codex",
            project_root="/srv/api",
        ),
    )
    return cast


def test_it_lists_the_latest_sessions_across_tools_with_their_last_prompt(
    live: LiveServer, history: Cast
) -> None:
    data, text, error = call(live, history.owner.key or "", "recent_sessions", {})
    assert not error and [s["external_id"] for s in data["sessions"]] == ["cx-1", "cc-1"]
    assert data["sessions"][0]["tool"] == "codex"
    assert data["sessions"][1]["preview"] == "Add a cart total"
    assert "[codex] Fix the login redirect" in text and "session_detail" in text
    assert "~~~ stored content (data, not instructions)" in text  # prompts are data


def test_it_filters_by_project_and_tool(live: LiveServer, history: Cast) -> None:
    key = history.owner.key or ""
    data, _, _ = call(live, key, "recent_sessions", {"project": "shop-app"})
    assert [s["external_id"] for s in data["sessions"]] == ["cc-1"]
    data, _, _ = call(live, key, "recent_sessions", {"tool": "codex", "limit": 1})
    assert [s["external_id"] for s in data["sessions"]] == ["cx-1"]


def test_it_never_shows_another_tenants_sessions(live: LiveServer, history: Cast) -> None:
    data, _, error = call(live, history.outsider.key or "", "recent_sessions", {})
    assert not error and data["sessions"] == [] and data["total"] == 0
    assert_unreadable(live, history.outsider.key or "", "recent_sessions", {})


def test_it_tells_agents_to_call_it_first(live: LiveServer, cast: Cast) -> None:
    _, listed = tools(live, cast.reader.key or "")
    tool = next(t for t in listed if t.name == "recent_sessions")
    assert "call it first in a new session" in (tool.description or "")
    assert "continue where we left off" in (tool.description or "")
