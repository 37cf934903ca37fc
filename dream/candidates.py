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


# One statement for a whole batch of sources: each source's three arms run as LATERAL
# subqueries (the HNSW scan ordered by the source's own vector, the trigram GIN scan by its
# title, the tags GIN scan), so a batch of n sources costs one round trip and one plan.
_SQL = """
WITH src AS (
    SELECT s.id, s.scope_id, s.title, s.tags, s.embedding FROM ctx_block s
    WHERE s.id = ANY(%(ids)s::uuid[]) AND s.embedding IS NOT NULL
), cand AS (
    SELECT src.id AS src_id, c.id, array_agg(c.arm ORDER BY c.arm) AS arms
    FROM src CROSS JOIN LATERAL (
        (SELECT b.id, 'nn' AS arm FROM ctx_block b
         WHERE b.scope_id = src.scope_id AND NOT b.archived AND b.id <> src.id
           AND b.type <> 'digest' AND b.embedding IS NOT NULL
         ORDER BY b.embedding <=> src.embedding
         LIMIT %(k)s)
        UNION ALL
        (SELECT b.id, 'lex' FROM ctx_block b
         WHERE b.title %% src.title AND b.scope_id = src.scope_id AND NOT b.archived
           AND b.id <> src.id AND b.type <> 'digest'
         ORDER BY similarity(b.title, src.title) DESC
         LIMIT %(k)s)
        UNION ALL
        (SELECT b.id, 'tag' FROM ctx_block b
         WHERE cardinality(src.tags) > 0 AND b.tags && src.tags
           AND b.scope_id = src.scope_id AND NOT b.archived AND b.id <> src.id
           AND b.type <> 'digest'
         ORDER BY b.updated_at DESC
         LIMIT %(k)s)
    ) c
    GROUP BY src.id, c.id
)
SELECT cand.src_id::text, b.id, b.scope_id, b.category, b.title, b.tags,
    coalesce(b.source_time, b.created_at), left(b.content, %(chars)s), b.lifecycle,
    coalesce(1 - (b.embedding <=> src.embedding), 0),
    similarity(b.title, src.title),
    ARRAY(SELECT DISTINCT a1.dimension FROM ctx_temporalanchor a1
          JOIN ctx_temporalanchor a2 ON a2.block_id = b.id AND a2.dimension = a1.dimension
               AND a2.value = a1.value AND a2.kind = 'meta' AND a2.source_date <> a1.source_date
          WHERE a1.block_id = src.id AND a1.kind = 'meta'
            AND a1.dimension = ANY(%(dims)s)),
    cand.arms
FROM cand JOIN src ON src.id = cand.src_id JOIN ctx_block b ON b.id = cand.id
"""


def find(source: Source, *, k: int, chars: int) -> list[Candidate]:
    """The source's candidates, closest by embedding first."""
    return find_many([source], k=k, chars=chars)[source.id]


def find_many(sources: list[Source], *, k: int, chars: int) -> dict[str, list[Candidate]]:
    """Every source's candidates (closest by embedding first), in one round trip."""
    params: dict[str, Any] = {
        "ids": [s.id for s in sources],
        "k": k,
        "chars": chars,
        "dims": RECURRENT_DIMENSIONS,
    }
    with connection.cursor() as cur:
        cur.execute(_SQL, params)
        rows = cur.fetchall()
    found: dict[str, list[Candidate]] = {s.id: [] for s in sources}
    for r in rows:
        found[r[0]].append(_candidate(r[1:]))
    return {sid: sorted(cands, key=lambda c: (-c.cos, c.id)) for sid, cands in found.items()}


def _candidate(r: tuple[Any, ...]) -> Candidate:
    return Candidate(
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
