"""tools/list and the server instructions, as a client sees them."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, tools

pytestmark = pytest.mark.django_db(transaction=True)

READ_ONLY = {
    *("query", "search", "get", "recent", "categories", "stats"),
    *("recent_sessions", "session_detail", "search_sessions", "facts"),
    *("get_preferences", "list_profiles"),
    *("history", "get_context", "changes"),
    "index_search",
    *("blob_search", "blob_get"),
}
DESTRUCTIVE = {"store", "update", "delete", "index"}
# writes that destroy nothing: the knowledge writes never replace or delete (a repeat is
# refused as a duplicate), and a repeated signal without an id records again
ADDITIVE = {"record_signal", "save_decision", "save_error_solution", "save_insight"}
NOT_IDEMPOTENT = {"record_signal"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # initialize, and 2026-07-28 discovery
def test_it_lists_every_tool_with_title_and_annotations(
    live: LiveServer, cast: Cast, mode: str
) -> None:
    instructions, listed = tools(live, cast.reader.key or "", mode)
    assert {t.name for t in listed} == READ_ONLY | DESTRUCTIVE | ADDITIVE
    for tool in listed:
        notes = tool.annotations
        assert tool.title and notes is not None and notes.title == tool.title
        assert notes.read_only_hint is (tool.name in READ_ONLY)
        assert notes.destructive_hint is (tool.name in DESTRUCTIVE)
        assert notes.idempotent_hint is (tool.name not in NOT_IDEMPOTENT)
        assert notes.open_world_hint is False
        assert tool.output_schema is not None
        assert tool.output_schema["required"] == ["success"]
    if instructions is not None:  # the modern wire carries no instructions in tools/list
        for name in READ_ONLY | DESTRUCTIVE | ADDITIVE:
            assert f"`{name}`" in instructions


def test_it_describes_when_and_when_not_with_an_example(live: LiveServer, cast: Cast) -> None:
    _, listed = tools(live, cast.reader.key or "")
    for tool in listed:
        text = tool.description or ""
        parts = [text.find(f"\n{label}: ") for label in ("WHEN", "WHEN NOT", "RETURNS", "EXAMPLE")]
        assert all(p > 0 for p in parts) and parts == sorted(parts), tool.name


def test_it_bounds_every_input(live: LiveServer, cast: Cast) -> None:
    by_name = {t.name: t for t in tools(live, cast.reader.key or "")[1]}
    query = by_name["query"].input_schema["properties"]
    assert query["query"]["maxLength"] == 2000 and query["limit"]["maximum"] == 50
    store = by_name["store"].input_schema
    assert store["required"] == ["category", "title", "content"]
    assert store["properties"]["title"]["maxLength"] == 500
    assert "enum" in store["properties"]["type"]
