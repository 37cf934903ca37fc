"""MCP tool `search`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_finds_blocks_by_keywords(live: LiveServer, cast: Cast) -> None:
    hit = cast.owner.store(category="food", title="Lunch spots", content="Ramen on 5th street.")
    cast.owner.store(category="infra", title="Deploys", content="Tuesdays after standup.")
    data, text, error = call(live, cast.owner.key or "", "search", {"query": "ramen street"})
    assert not error and [r["id"] for r in data["results"]] == [hit["id"]]
    assert data["count"] == 1 and data["results"][0]["score"] > 0
    assert hit["id"] in text and "Lunch spots" in text


def test_it_never_shows_another_tenants_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(title="Lunch spots", content="Ramen on 5th street.")
    data, _, error = call(live, cast.outsider.key or "", "search", {"query": "ramen"})
    assert not error and data["results"] == []
    assert_unreadable(live, cast.outsider.key or "", "search", {"query": "ramen"})


def test_it_bounds_the_limit(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(live, cast.owner.key or "", "search", {"query": "x", "limit": 500})
    assert error and data["error"]["code"] == "validation_error"


def test_it_drops_results_below_min_score(live: LiveServer, cast: Cast) -> None:
    strong = cast.owner.store(title="Lunch", content="The ramen place has the best ramen broth.")
    cast.owner.store(title="Dinner", content="Pasta in a broth-based sauce.")
    key = cast.owner.key or ""
    data, _, error = call(live, key, "search", {"query": "ramen broth"})
    assert not error and data["count"] == 2 and data["results"][0]["score"] == 1.0
    data, text, error = call(live, key, "search", {"query": "ramen broth", "min_score": 0.5})
    assert not error and [r["id"] for r in data["results"]] == [strong["id"]]
    assert "Dinner" not in text
    data, _, error = call(live, key, "search", {"query": "ramen", "min_score": 1.01})
    assert error and data["error"]["code"] == "validation_error"
    assert data["error"]["details"]["field"] == "min_score"
