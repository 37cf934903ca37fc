"""Cheap deterministic candidates for one source block, in ONE SQL round trip.

Sources, each bounded by CTX_DREAM_CANDIDATES and restricted to the source's scope:
- nearest neighbours by the block embedding (HNSW on ctx_block.embedding, the mean of the
  block's windows);
- lexical overlap of titles (pg_trgm `%` on the trigram GIN index);
- shared tags (GIN on tags), most recent first.

For every candidate the statement also returns the cosine, the title similarity and the cyclic
anchor dimensions (weekday, monthday, day of year) the two blocks share on different dates:
recurrence needs a shared anchor plus a similar title.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

RECURRENT_DIMENSIONS = ["weekday", "monthday", "seasonal"]
# Every rule that reads title similarity needs at least 0.5, so the lexical arm asks pg_trgm
# for no less: the `%` operator then rechecks far fewer rows of common-word titles.
TITLE_THRESHOLD = 0.5


@contextmanager
def title_threshold() -> Iterator[None]:
    """Raise pg_trgm's `%` threshold on this connection while a worker runs its cycles."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT set_config('pg_trgm.similarity_threshold', %s, false)", [str(TITLE_THRESHOLD)]
        )
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET pg_trgm.similarity_threshold")


@dataclass(frozen=True)
class Source:
    id: str
    scope_id: int
    tenant_id: int
    category: str
    title: str
    tags: tuple[str, ...]
    when: datetime  # when it was said: source_time, else created_at
    text: str  # the first characters of the content
    lifecycle: str


@dataclass(frozen=True)
class Candidate:
    id: str
    scope_id: int
    category: str
    title: str
    tags: tuple[str, ...]
    when: datetime
    text: str
    lifecycle: str
    cos: float
    tsim: float
    recur: tuple[str, ...]  # shared cyclic anchor dimensions on different dates
    arms: tuple[str, ...]  # which sources proposed it: nn, lex, tag


_SQL = """
WITH nn AS (
    SELECT b.id FROM ctx_block b
    WHERE b.scope_id = %(scope)s AND NOT b.archived AND b.id <> %(id)s
      AND b.type <> 'digest' AND b.embedding IS NOT NULL
    ORDER BY b.embedding <=> (SELECT embedding FROM ctx_block WHERE id = %(id)s)
    LIMIT %(k)s
), lex AS (
    SELECT b.id FROM ctx_block b
    WHERE b.title %% %(title)s AND b.scope_id = %(scope)s AND NOT b.archived
      AND b.id <> %(id)s AND b.type <> 'digest'
    ORDER BY similarity(b.title, %(title)s) DESC
    LIMIT %(k)s
), tag AS (
    SELECT b.id FROM ctx_block b
    WHERE cardinality(%(tags)s::varchar[]) > 0 AND b.tags && %(tags)s::varchar[]
      AND b.scope_id = %(scope)s AND NOT b.archived AND b.id <> %(id)s AND b.type <> 'digest'
    ORDER BY b.updated_at DESC
    LIMIT %(k)s
), cand AS (
    SELECT id, array_agg(arm) AS arms FROM (
        SELECT id, 'nn' AS arm FROM nn UNION ALL SELECT id, 'lex' FROM lex
        UNION ALL SELECT id, 'tag' FROM tag) u
    GROUP BY id
)
SELECT b.id, b.scope_id, b.category, b.title, b.tags, coalesce(b.source_time, b.created_at),
    left(b.content, %(chars)s), b.lifecycle,
    coalesce(1 - (b.embedding <=> (SELECT embedding FROM ctx_block WHERE id = %(id)s)), 0),
    similarity(b.title, %(title)s),
    ARRAY(SELECT DISTINCT a1.dimension FROM ctx_temporalanchor a1
          JOIN ctx_temporalanchor a2 ON a2.block_id = b.id AND a2.dimension = a1.dimension
               AND a2.value = a1.value AND a2.kind = 'meta' AND a2.source_date <> a1.source_date
          WHERE a1.block_id = %(id)s AND a1.kind = 'meta'
            AND a1.dimension = ANY(%(dims)s)),
    cand.arms
FROM cand JOIN ctx_block b ON b.id = cand.id
"""


def find(source: Source, *, k: int, chars: int) -> list[Candidate]:
    """The source's candidates, closest by embedding first."""
    params: dict[str, Any] = {
        "id": source.id,
        "scope": source.scope_id,
        "title": source.title,
        "tags": list(source.tags),
        "k": k,
        "chars": chars,
        "dims": RECURRENT_DIMENSIONS,
    }
    with connection.cursor() as cur:
        cur.execute(_SQL, params)
        rows = cur.fetchall()
    found = [
        Candidate(
            id=str(r[0]),
            scope_id=r[1],
            category=r[2],
            title=r[3],
            tags=tuple(r[4] or ()),
            when=r[5],
            text=r[6],
            lifecycle=r[7],
            cos=float(r[8]),
            tsim=float(r[9]),
            recur=tuple(sorted(r[10] or ())),
            arms=tuple(sorted(r[11] or ())),
        )
        for r in rows
    ]
    return sorted(found, key=lambda c: (-c.cos, c.id))
