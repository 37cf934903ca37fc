"""Running the fused statement and shaping its rows into typed hits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from ctx.models import Block
from retrieval.sql import ARMS, ArmWeights, Filters, fused_search_sql
from retrieval.text import lexical_query, wants_title_arm

PREVIEW_CHARS = 240
_SPACE = re.compile(r"\s+")


@dataclass
class Hit:
    """One candidate through the pipeline; stages adjust `score` and note what they did."""

    id: str
    score: float
    rrf: float
    arms: dict[str, dict[str, float]] = field(default_factory=dict)
    block: Block | None = None
    stages: dict[str, Any] = field(default_factory=dict)


def preview(text: str) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1].rstrip() + "…"


def pool_size(limit: int) -> int:
    """Candidates each arm ranks: enough headroom for fusion and later re-ranking."""
    return max(50, limit * 5)


def run_fused(
    *,
    query: str,
    filters: Filters,
    limit: int,
    weights: ArmWeights | None = None,
    query_vector: list[float] | None = None,
    queries: dict[str, str] | None = None,
    lexical: str | None = None,
    iso_dates: list[str] | None = None,
) -> list[Hit]:
    """Hits ordered by weighted RRF.

    `lexical` is the text for the full-text arms (default: the query without stopwords);
    `queries` may give each language arm its own text; `iso_dates` join as exact phrases.
    """
    weights = weights or ArmWeights()
    per_lang = queries or {}
    text = lexical_query(query) if lexical is None else lexical
    dates = (iso_dates or [])[:7]
    arms = tuple(a for a in ARMS if a != "title" or wants_title_arm(query))
    if not text and not per_lang and not dates:
        arms = tuple(a for a in arms if a not in ("fts_en", "fts_de"))
    arms = tuple(a for a in arms if weights.of(a) > 0 and (a != "semantic" or query_vector))
    if not arms:
        return []
    sql, params = fused_search_sql(
        filters=filters,
        weights=weights,
        with_semantic=query_vector is not None,
        arms=arms,
        iso_dates=len(dates),
    )
    params.update({f"iso_{i}": d for i, d in enumerate(dates)})
    params.update(
        q_english=per_lang.get("english", text),
        q_german=per_lang.get("german", text),
        q_raw=query,
        qvec=_vector_literal(query_vector) if query_vector is not None else None,
        pool=pool_size(limit),
        chunk_pool=pool_size(limit) * 4,  # several windows of one block may lead
        limit=limit,
    )
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = cur.fetchall()
    return [_hit(row) for row in rows]


def _vector_literal(vec: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vec) + "]"


def _hit(row: tuple[Any, ...]) -> Hit:
    block_id, rrf = str(row[0]), float(row[1])
    arms: dict[str, dict[str, float]] = {}
    for i, arm in enumerate(ARMS):
        rank, score = row[2 + 2 * i], row[3 + 2 * i]
        if rank is not None:
            arms[arm] = {"rank": int(rank), "score": round(float(score), 6)}
    return Hit(id=block_id, score=rrf, rrf=rrf, arms=arms)


def attach_blocks(hits: list[Hit]) -> list[Hit]:
    """Load the hits' blocks in one query (content deferred to what callers need)."""
    found = Block.objects.select_related("scope").in_bulk([h.id for h in hits])
    by_id = {str(pk): block for pk, block in found.items()}
    for hit in hits:
        hit.block = by_id.get(hit.id)
    return [h for h in hits if h.block is not None]
