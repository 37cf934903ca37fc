"""Query feedback (pseudo-relevance feedback, Rocchio on windows) as a retrieval stage.

A question names a topic in its own words ("How many doctors did I visit?"); the notes that
answer it use theirs ("my ENT specialist", "Dr. Patel"). The best few blocks after fusion and
gravity usually speak the corpus's language about the topic, so the query vector moves towards
their best-matching windows, q' = q + w * mean(windows), and the semantic scores are computed
again with q' (exactly, over the blocks' windows; no index scan) for the hits the stages rank
and the semantic arm's own candidates. The other arms' scores stay, the arms are fused again,
and each hit keeps the gravity it already earned.

It helps most where several blocks hold one answer each (LongMemEval multi-session
questions, docs/architecture.md "Retrieval"); it needs the query vector and the fusion's raw
arm scores, and it fails open like every stage.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from ctx import knobs
from retrieval.search import Hit, vector_literal
from retrieval.stages import QueryContext, Stage

# One statement: the seeds' best windows, their mean added to the query, every candidate's
# windows scored against the result. Cosine distance ignores length, so q/w + mean(windows)
# ranks exactly as q + w * mean(windows) (pgvector has no vector-times-scalar). Two statements
# with the vectors parsed and built in Python made the stages 0.7 ms slower (p50, 92k blocks).
_FEEDBACK_SQL = """WITH seeds AS (
        SELECT DISTINCT ON (c.block_id) c.embedding FROM ctx_blockchunk c
        WHERE c.block_id = ANY(%(seeds)s::uuid[])
        ORDER BY c.block_id, c.embedding <=> %(q)s::vector),
    moved AS (SELECT %(q_scaled)s::vector + avg(embedding) AS v, count(*) AS n FROM seeds)
    SELECT c.block_id, 1 - min(c.embedding <=> m.v), m.n
    FROM moved m JOIN ctx_blockchunk c ON m.n > 0 AND c.block_id = ANY(%(ids)s::uuid[])
    GROUP BY c.block_id, m.n"""


class QueryFeedback(Stage):
    name = "feedback"

    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        retrieval = qc.retrieval
        if qc.query_vector is None or retrieval is None or not hits:
            qc.explain[self.name] = "skipped: no query vector"
            return hits
        arm = retrieval.arm("semantic")
        if arm is None:
            qc.explain[self.name] = "skipped: no semantic arm"
            return hits
        tenant = qc.principal.tenant_id
        seeds = [h.id for h in hits[: int(knobs.value("CTX_FEEDBACK_SEEDS", tenant))]]
        weight = float(knobs.value("CTX_FEEDBACK_WEIGHT", tenant))
        if weight <= 0:
            qc.explain[self.name] = "skipped: CTX_FEEDBACK_WEIGHT is 0"
            return hits
        params: dict[str, Any] = {
            "seeds": seeds,
            "q": vector_literal(qc.query_vector),
            "q_scaled": vector_literal([x / weight for x in qc.query_vector]),
            # the ranked hits and the semantic arm's candidates; the lexical arms' others,
            # which no stage sees, were rescored too until that cost 1.4 ms at 92k blocks
            # (p50) for the same LongMemEval_S figures and evidence recall among 92k turns
            "ids": sorted({h.id for h in hits} | set(arm.scores)),
        }
        with connection.cursor() as cur:
            cur.execute(_FEEDBACK_SQL, params)
            rows = cur.fetchall()
        if not rows:
            qc.explain[self.name] = "skipped: the best blocks are not embedded yet"
            return hits
        semantic = {str(row[0]): float(row[1]) for row in rows}
        retrieval.replace_arm("semantic", semantic)
        _refuse(hits, retrieval.fused(), semantic)
        qc.explain[self.name] = {"seeds": seeds, "weight": weight, "windows": int(rows[0][2])}
        return sorted(hits, key=lambda h: (-h.score, h.id))


def _refuse(hits: list[Hit], fused: dict[str, float], semantic: dict[str, float]) -> None:
    """New fused scores, each times the gravity the hit earned; `explain` shows new cosines."""
    ranks = {i: r for r, i in enumerate(sorted(semantic, key=lambda i: (-semantic[i], i)), 1)}
    for hit in hits:
        hit.fused = fused.get(hit.id, hit.fused)
        hit.score = hit.fused * float(hit.stages.get("gravity_multiplier", 1.0))
        if hit.id in semantic:
            hit.arms["semantic"] = {"rank": ranks[hit.id], "score": round(semantic[hit.id], 6)}
