"""The embedding worker refreshes the planner's statistics after a bulk load, as the runtime
role: otherwise the guard's neighbour probe reads the whole scope row by row for every new
block (the plan of a nearly empty table) instead of asking the HNSW index."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from django.db import connection, connections

from ctx.models import Block, Scope
from dream import guard
from retrieval import indexing
from rls.role import ROLE
from tests.conftest import make_cast

pytestmark = pytest.mark.django_db(transaction=True)

BLOCKS = 3000


def _vectors(count: int) -> list[list[float]]:
    vectors = np.random.default_rng(7).normal(size=(count, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [v.tolist() for v in vectors]


def _bulk_load(*, embedded: bool = True) -> list[str]:
    """BLOCKS blocks in one scope, with vectors or (an import before its embedding) without;
    returns the newest 64 ids (all of them without vectors)."""
    make_cast()
    main = Scope.objects.get(name="acme:main")
    vectors = _vectors(BLOCKS) if embedded else [None] * BLOCKS
    blocks = Block.objects.bulk_create(
        Block(
            scope=main,
            category="c",
            title=f"t{i}",
            content=f"note {i}",
            content_hash=f"h{i}",
            embedding=v,
        )
        for i, v in enumerate(vectors)
    )
    _flush_counters()
    return [str(b.pk) for b in (blocks[-64:] if embedded else blocks)]


def _flush_counters() -> None:
    with connection.cursor() as cur:  # this backend's counters reach pg_stat now, not in 1 s
        cur.execute("SELECT pg_stat_force_next_flush()")


@contextmanager
def _runtime_role() -> Iterator[None]:
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {ROLE}")
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")


def _probe_plan(ids: list[str]) -> str:
    with connection.cursor() as cur:
        cur.execute("EXPLAIN " + guard._NEIGHBOURS, {"ids": ids, "k": 5})
        return "\n".join(r[0] for r in cur.fetchall())


def test_a_bulk_load_is_analysed_and_the_guard_probes_the_hnsw_index() -> None:
    newest = _bulk_load()
    with _runtime_role():
        assert indexing.refresh_planner_stats() == ["ctx_block"]
        assert indexing.refresh_planner_stats() == []  # fresh now: nothing to do
    with connection.cursor() as cur:
        cur.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'ctx_block'")
        assert cur.fetchone()[0] is not None
    assert "block_embedding_hnsw" in _probe_plan(newest)


def test_blocks_stored_before_their_vectors_are_analysed_again_once_a_batch_has_vectors() -> None:
    # An import stores its blocks first and embeds them afterwards: analysed while no block
    # had a vector, the statistics must not wait for a fifth of *all* blocks to be embedded.
    ids = _bulk_load(embedded=False)
    with _runtime_role():
        assert indexing.refresh_planner_stats() == ["ctx_block"]
    batch = Block.objects.filter(pk__in=ids[: indexing.BATCH])
    for block, vector in zip(batch, _vectors(indexing.BATCH), strict=True):
        block.embedding = vector
        block.save(update_fields=["embedding"])
    _flush_counters()
    with _runtime_role():
        assert indexing.refresh_planner_stats() == ["ctx_block"]
        assert indexing.refresh_planner_stats() == []
    assert "block_embedding_hnsw" in _probe_plan(ids[: indexing.BATCH])


def test_while_another_worker_analyses_this_one_goes_on() -> None:
    _bulk_load()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cur:
            cur.execute("SELECT pg_advisory_lock(%s)", [indexing._ANALYSE_LOCK])
        assert indexing.refresh_planner_stats() == []
        with other.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s)", [indexing._ANALYSE_LOCK])
        assert indexing.refresh_planner_stats() == ["ctx_block"]
    finally:
        other.close()


def test_a_table_held_by_maintenance_is_left_for_later_without_waiting() -> None:
    _bulk_load()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cur:  # what a VACUUM or CREATE INDEX CONCURRENTLY holds
            cur.execute("BEGIN")
            cur.execute("LOCK TABLE ctx_block IN SHARE UPDATE EXCLUSIVE MODE")
        assert indexing.refresh_planner_stats() == []  # gave up after its lock timeout
        with other.cursor() as cur:
            cur.execute("ROLLBACK")
        assert indexing.refresh_planner_stats() == ["ctx_block"]
    finally:
        other.close()
