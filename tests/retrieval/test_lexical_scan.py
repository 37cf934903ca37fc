"""A small scope among many blocks is full-text searched by reading its own rows, not the GIN
indexes every tenant's rows share (a 1,000-block tenant among a million paid 4-20 ms an arm
for posting lists of other tenants' rows, bench/scale.py). The same matches, scores and
order either way; a scope about the table's size keeps the indexes."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from retrieval import search
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db

NOTES = [
    ("Car service", "knowledge", "The mechanic changed the oil of the Honda and the brake pads."),
    ("Brake recall", "reference", "A recall notice: the brake pads of some Honda models wear."),
    ("Lunch spots", "knowledge", "The ramen place on 5th street has the best broth in town."),
    ("Deploy policy", "knowledge", "Production deploys happen on Tuesdays after the standup."),
]


def _many_elsewhere(api: Api, n: int = 100) -> None:
    """Another tenant's blocks, so that the table is 20 times the asking scope."""
    blocks = [
        {"category": "filler", "title": f"Filler {i}", "content": f"brake pads oil honda {i}"}
        for i in range(n)
    ]
    status, body = api.post("/api/store/batch", {"blocks": blocks})
    assert status in (200, 201), body
    with connection.cursor() as cur:
        cur.execute("ANALYZE ctx_block")  # the table's size as the planner knows it
    search._table.clear()


def _ask(api: Api, query: str, **fields: Any) -> tuple[list[tuple[str, float]], str]:
    with CaptureQueriesContext(connection) as ctx:
        status, body = api.post("/api/query", {"query": query, "limit": 5, **fields})
    assert status == 200, body
    statement = next(q["sql"] for q in ctx.captured_queries if "fts_en AS (" in q["sql"])
    return [(s["title"], s["score"]) for s in body["sources"]], statement


@pytest.mark.parametrize("fields", [{}, {"types": ["knowledge"]}])
def test_a_small_scope_among_many_reads_its_rows_and_finds_the_same(
    cast: Cast, settings: Any, fields: dict[str, Any]
) -> None:
    for title, kind, content in NOTES:
        cast.owner.store(title=title, type=kind, content=content)
    _many_elsewhere(cast.outsider)
    scanned, statement = _ask(cast.owner, "honda brake pads oil", **fields)
    assert "scoped AS MATERIALIZED" in statement and "FROM scoped b" in statement
    assert scanned[0][0] == "Car service"
    assert ("Brake recall" in dict(scanned)) is not bool(fields)  # the type filter holds

    settings.CTX = {**settings.CTX, "CTX_QUERY_SCAN_BLOCKS": 0}  # through the indexes
    indexed, statement = _ask(cast.owner, "honda brake pads oil", **fields)
    assert "scoped AS" not in statement
    assert indexed == scanned  # titles, scores and order


def test_a_scope_the_size_of_the_table_keeps_the_indexes(cast: Cast) -> None:
    for title, kind, content in NOTES:
        cast.owner.store(title=title, type=kind, content=content)
    with connection.cursor() as cur:
        cur.execute("ANALYZE ctx_block")
    search._table.clear()
    found, statement = _ask(cast.owner, "honda brake pads oil")
    assert "scoped AS" not in statement
    assert found[0][0] == "Car service"
