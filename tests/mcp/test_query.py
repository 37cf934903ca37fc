"""MCP tool `query`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_ranks_sources_and_judges_confidence(live: LiveServer, cast: Cast) -> None:
    hit = cast.owner.store(category="infra", title="Deploy policy", content="Deploys on Tuesdays.")
    cast.owner.store(category="food", title="Lunch", content="Ramen on 5th street.")
    data, text, error = call(live, cast.owner.key or "", "query", {"query": "deploy policy"})
    assert not error and data["sources"][0]["id"] == hit["id"]
    assert data["mode"] == "retrieval" and data["answer"] is None
    assert data["confidence"] in {"confident", "low_confidence", "no_relevant_blocks_found"}
    assert text.startswith("Query: deploy policy\nConfidence: ") and hit["id"] in text


def test_it_never_shows_another_tenants_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(title="Deploy policy", content="Deploys on Tuesdays.")
    data, _, error = call(live, cast.outsider.key or "", "query", {"query": "deploy policy"})
    assert not error and data["sources"] == []
    assert data["confidence"] == "no_relevant_blocks_found"
