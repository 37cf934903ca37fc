"""How many windows the semantic arm reads per block it returns: what the scope's blocks have."""

from __future__ import annotations

import pytest

from ctx.models import Scope
from retrieval import indexing, search
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _factor() -> float:
    search._factors.clear()
    return search.window_factor([Scope.objects.get(name="acme:main").pk])


def test_a_scope_of_one_window_blocks_reads_one_window_per_block(cast: Cast) -> None:
    for i in range(5):
        cast.owner.store(title=f"Short {i}", content=f"A short note number {i}.")
    indexing.embed_pending(limit=100)
    assert _factor() == 1.0


def test_long_blocks_keep_the_factor(cast: Cast) -> None:
    sentence = "The migration plan covers the database, the queues and the caches. "
    for i in range(3):
        cast.owner.store(title=f"Plan {i}", content=sentence * 40)  # several windows each
    indexing.embed_pending(limit=100)
    assert _factor() == search.CHUNK_POOL_FACTOR
