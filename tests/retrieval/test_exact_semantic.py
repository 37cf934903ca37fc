"""Small scopes are searched by meaning exactly (every window's distance), large ones through
the HNSW index: the graph is shared by every tenant, so a small tenant's search walked past a
million other rows to find its own (bench/scale.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from retrieval import indexing, search
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

NOTES = {
    "Car service": "My Honda got its first service in March; the mechanic changed the oil.",
    "Lunch spots": "The ramen place on 5th street has the best broth in town.",
    "Deploy policy": "Production deploys happen on Tuesdays after the standup.",
    "Garden": "The tomatoes on the balcony need water every second evening in summer.",
}


def _ask(cast: Cast, query: str) -> tuple[list[str], str]:
    """The sources' titles and the semantic arm of the statement that found them."""
    with CaptureQueriesContext(connection) as ctx:
        status, body = cast.owner.post("/api/query", {"query": query, "limit": 4})
    assert status == 200
    statement = next(q["sql"] for q in ctx.captured_queries if "semantic AS (" in q["sql"])
    arm = statement[statement.index("semantic AS (") :]
    return [s["title"] for s in body["sources"]], arm[: arm.index("LIMIT")]


def test_a_small_scope_is_searched_exactly_and_finds_the_same(cast: Cast, settings: Any) -> None:
    for title, content in NOTES.items():
        cast.owner.store(category="notes", title=title, content=content)
    assert indexing.embed_pending(limit=10) == 4
    exact_titles, exact_arm = _ask(cast, "automobile maintenance")
    assert "ORDER BY c.embedding <=>" not in exact_arm  # no index scan: every window read
    assert exact_titles[0] == "Car service"

    settings.CTX = {**settings.CTX, "CTX_QUERY_EXACT_WINDOWS": 0}  # large from now on
    hnsw_titles, hnsw_arm = _ask(cast, "automobile maintenance")
    assert "ORDER BY c.embedding <=>" in hnsw_arm
    assert hnsw_titles == exact_titles


def test_a_scope_of_few_long_blocks_is_counted_by_its_windows(cast: Cast, settings: Any) -> None:
    """Two blocks of many windows each are more windows than the limit: the graph is asked."""
    sentence = "The migration plan covers the database, the queues and the caches. "
    for i in range(2):
        cast.owner.store(category="plans", title=f"Plan {i}", content=sentence * 40)
    assert indexing.embed_pending(limit=10) == 2
    search._factors.clear()  # per scope set, a minute: another test's scope had this id
    settings.CTX = {**settings.CTX, "CTX_QUERY_EXACT_WINDOWS": 10}  # fewer than 2 blocks' windows
    _, semantic = _ask(cast, "database migration plan")
    assert "ORDER BY c.embedding <=>" in semantic
