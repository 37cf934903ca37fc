"""How many windows the semantic arm reads per block it returns: measured in large scopes."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Scope
from retrieval import indexing, search
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _scope_id() -> int:
    return Scope.objects.get(name="acme:main").pk


def test_a_large_scope_of_one_window_blocks_reads_one_window_per_block(
    cast: Cast, monkeypatch: Any
) -> None:
    for i in range(5):
        cast.owner.store(title=f"Short {i}", content=f"A short note number {i}.")
    indexing.embed_pending(limit=100)
    assert search.scope_size([_scope_id()]).window_factor == search.CHUNK_POOL_FACTOR  # small
    monkeypatch.setattr(search, "N_EXACT_UP_TO", 3)  # the same scope counts as large now
    search._n_cache.clear()
    assert search.scope_size([_scope_id()]).window_factor == 1.0


def test_long_blocks_keep_the_factor(cast: Cast) -> None:
    sentence = "The migration plan covers the database, the queues and the caches. "
    for i in range(3):
        cast.owner.store(title=f"Plan {i}", content=sentence * 40)  # several windows each
    indexing.embed_pending(limit=100)
    assert search._window_factor([_scope_id()]) == search.CHUNK_POOL_FACTOR
