"""Query feedback (pseudo-relevance feedback, Rocchio on windows) as a retrieval stage.

A question names a topic in its own words ("How many doctors did I visit?"); the notes that
answer it use theirs ("my ENT specialist", "Dr. Patel"). The best few blocks after fusion and
gravity usually speak the corpus's language about the topic, so the query vector moves towards
their best-matching windows, q' = q + w * mean(windows), and every candidate's semantic score is
computed again with q' (exactly, over the candidates' windows; no index scan). The other arms'
scores stay, the arms are fused again, and each hit keeps the gravity it already earned.

It helps most where several blocks hold one answer each (LongMemEval multi-session
questions, docs/retrieval.md); it needs the query vector and the fusion's raw arm scores, and
it fails open like every stage.
"""

from __future__ import annotations

import math

from django.db import connection

from ctx.registry.resolver import value as registry_value
from retrieval.search import Hit, vector_literal
from retrieval.stages import QueryContext, Stage

_SEEDS_SQL = """SELECT DISTINCT ON (c.block_id) c.block_id, c.embedding::text
    FROM ctx_blockchunk c WHERE c.block_id = ANY(%s::uuid[])
    ORDER BY c.block_id, c.embedding <=> %s::vector"""
_RESCORE_SQL = """SELECT c.block_id, 1 - min(c.embedding <=> %s::vector)
    FROM ctx_blockchunk c WHERE c.block_id = ANY(%s::uuid[]) GROUP BY c.block_id"""


def moved_vector(query: list[float], seeds: list[list[float]], weight: float) -> list[float]:
    """Unit vector of query + weight * mean(seeds); the query itself when there are none."""
    if not seeds or weight <= 0:
        return query
    dim = len(query)
    mean = [sum(s[i] for s in seeds) / len(seeds) for i in range(dim)]
    moved = [q + weight * m for q, m in zip(query, mean, strict=True)]
    norm = math.sqrt(sum(x * x for x in moved)) or 1.0
    return [x / norm for x in moved]


def _parse_vector(text: str) -> list[float]:
    return [float(x) for x in text.strip("[]").split(",")]


class QueryFeedback(Stage):
    name = "feedback"

    def run(self, ctx: QueryContext, hits: list[Hit]) -> list[Hit]:
        retrieval = ctx.retrieval
        if ctx.query_vector is None or retrieval is None or not hits:
            ctx.explain[self.name] = "skipped: no query vector"
            return hits
        if not any(a.arm == "semantic" for a in retrieval.arms):
            ctx.explain[self.name] = "skipped: no semantic arm"
            return hits
        tenant = ctx.principal.tenant_id
        seeds = [h.id for h in hits[: int(registry_value("CTX_FEEDBACK_SEEDS", tenant))]]
        weight = float(registry_value("CTX_FEEDBACK_WEIGHT", tenant))
        qvec = vector_literal(ctx.query_vector)
        with connection.cursor() as cur:
            cur.execute(_SEEDS_SQL, [seeds, qvec])
            windows = [_parse_vector(row[1]) for row in cur.fetchall()]
            if not windows:
                ctx.explain[self.name] = "skipped: the best blocks are not embedded yet"
                return hits
            moved = moved_vector(ctx.query_vector, windows, weight)
            ids = sorted({i for arm in retrieval.arms for i in arm.scores})
            cur.execute(_RESCORE_SQL, [vector_literal(moved), ids])
            semantic = {str(row[0]): float(row[1]) for row in cur.fetchall()}
        retrieval.replace_arm("semantic", semantic)
        _refuse(hits, retrieval.fused(), semantic)
        ctx.explain[self.name] = {"seeds": seeds, "weight": weight, "windows": len(windows)}
        return sorted(hits, key=lambda h: (-h.score, h.id))


def _refuse(hits: list[Hit], fused: dict[str, float], semantic: dict[str, float]) -> None:
    """New fused scores, each times the gravity the hit earned; `explain` shows new cosines."""
    ranks = {i: r for r, i in enumerate(sorted(semantic, key=lambda i: (-semantic[i], i)), 1)}
    for hit in hits:
        hit.fused = fused.get(hit.id, hit.fused)
        hit.score = hit.fused * float(hit.stages.get("gravity_multiplier", 1.0))
        if hit.id in semantic:
            hit.arms["semantic"] = {"rank": ranks[hit.id], "score": round(semantic[hit.id], 6)}
