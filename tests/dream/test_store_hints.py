"""/api/store answers with near-duplicate hints at once (the new text embedded synchronously)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from retrieval import indexing
from retrieval.embeddings import get_embedder
from tests.conftest import Cast
from tests.dream.conftest import settings_ctx
from tests.fake_http import dead_url

pytestmark = pytest.mark.django_db

TEXT = "Production runs Docker compose v2 on three hosts behind an nginx proxy."


def test_it_hints_at_the_closest_block_above_the_review_threshold(cast: Cast) -> None:
    first = cast.owner.store(title="Docker setup", content=TEXT)
    assert first["guard"] == {"checked": True, "near_duplicate": None}
    indexing.embed_pending(limit=10)
    second = cast.owner.store(title="Docker hosts", content=TEXT + " Updated.")
    hint = second["guard"]["near_duplicate"]
    assert second["guard"]["checked"] and hint["id"] == first["id"]
    assert hint["title"] == "Docker setup" and hint["scope"] == "acme:main"
    assert 0.92 <= hint["similarity"] < 1.0
    other = cast.owner.store(title="Lunch", content="The ramen place on 5th street is good.")
    assert other["guard"]["near_duplicate"] is None


def test_it_finds_identical_text_before_it_is_embedded(cast: Cast) -> None:
    first = cast.owner.store(title="One", content=TEXT)
    second = cast.owner.store(title="Two", content=TEXT)
    assert second["guard"]["near_duplicate"]["id"] == first["id"]
    assert second["guard"]["near_duplicate"]["similarity"] == 1.0


def test_it_never_hints_at_another_scope(cast: Cast) -> None:
    cast.owner.store(title="Docker setup", content=TEXT)
    indexing.embed_pending(limit=10)
    assert cast.writer.store(title="Docker", content=TEXT)["guard"]["near_duplicate"] is None
    assert cast.outsider.store(title="Docker", content=TEXT)["guard"]["near_duplicate"] is None


def test_it_can_be_switched_off(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_GUARD_HINTS=False)
    assert cast.owner.store(title="x", content=TEXT)["guard"]["checked"] is False


@pytest.fixture
def broken_embedder(settings: Any) -> Iterator[None]:
    settings_ctx(
        settings,
        CTX_EMBED_PROVIDER="openai",
        CTX_EMBED_MODEL="m",
        CTX_EMBED_BASE_URL=dead_url(),
        CTX_EMBED_TIMEOUT=1,
    )
    get_embedder.cache_clear()
    yield
    get_embedder.cache_clear()


def test_it_fails_open_when_the_embedder_is_down(cast: Cast, broken_embedder: None) -> None:
    status, body = cast.owner.post("/api/store", {"category": "c", "title": "t", "content": TEXT})
    assert status == 201 and body["guard"] == {"checked": False, "near_duplicate": None}


def test_the_exact_twin_lookup_reads_an_index_not_the_scope(cast: Cast) -> None:
    """Every store looks for a live block of its scope with the same text. Without an index
    on (scope, content_hash) PostgreSQL read the whole scope for it: 646 ms a store at 300k
    blocks in one scope (bench/scale.py). Small test tables favour a sequential scan, so the
    plan is asked for with those off: the index must be able to answer the lookup."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    cast.owner.store(title="One", content=TEXT)
    # Enough other blocks in the scope, and statistics that know them, that the scope's other
    # indexes cannot tie with it: with one row any index answered as cheaply (flaky plans).
    others = [{"category": "c", "title": f"Other {i}", "content": f"note {i}"} for i in range(200)]
    status, body = cast.owner.post("/api/store/batch", {"blocks": others})
    assert status in (200, 201), body
    with connection.cursor() as cur:
        cur.execute("ANALYZE ctx_block")
    with CaptureQueriesContext(connection) as queries:
        cast.owner.store(title="Two", content=TEXT)
    lookup = [q["sql"] for q in queries if '"content_hash" =' in q["sql"]]
    assert lookup, "the guard's exact-twin query was not seen"
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("SET LOCAL enable_bitmapscan = off")
        cur.execute("EXPLAIN " + lookup[-1])
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "block_scope_hash_live" in plan, plan
