"""The embedded PostgreSQL's pgvector runs on this machine's CPU (ctx/runtime/pgvector.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from ctx.runtime import pgvector


def test_it_installed_a_pgvector_this_cpu_can_run() -> None:
    assert not pgvector.needs_portable()


def test_it_recognises_a_library_that_needs_avx512() -> None:
    kept = pgvector.library().with_name("vector.so.avx512")
    if not kept.exists():  # an AVX-512 machine: the shipped build was never swapped
        return
    assert pgvector._uses_avx512(kept)
    assert not pgvector._uses_avx512(pgvector.library())


@pytest.mark.django_db
def test_it_inserts_into_an_hnsw_index() -> None:
    """The statement that crashed the backend (SIGILL) before the swap."""
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE v (e vector(3))")
        cur.execute("CREATE INDEX ON v USING hnsw (e vector_cosine_ops)")
        cur.execute(
            "INSERT INTO v SELECT ARRAY[random(), random(), 1]::vector FROM generate_series(1, 50)"
        )
        cur.execute("SELECT count(*) FROM v")
        assert cur.fetchone() == (50,)
