"""The link graph at read time: graph expansion as a query stage (the ego graph of a block is
`dream.ego`).

It only follows links whose ends are live blocks in scopes the caller can read (links never
cross scopes, and the scope filter is applied to every hop again).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from ctx import knobs
from ctx.models import Block, is_tool_output
from retrieval.search import Hit, attach_blocks
from retrieval.sql import Filters
from retrieval.stages import QueryContext, Stage

# --- graph expansion ----------------------------------------------------------------------------

CLASS_WEIGHTS = {"topical": 0.5, "factual": 0.9, "causal": 0.9, "recurrent": 1.0}
HUB_DEGREE = 10  # neighbours with more links than this are damped by sqrt(HUB_DEGREE / degree)
DEGREE_CAP = 1000  # counting stops here: a hub's exact degree does not matter

# Both directions as two index scans (a link between two seeds counts for each of them);
# the neighbour must be a live, readable, non-digest block. Degrees stop counting at a cap.
_EXPAND = """
SELECT x.seed, b.id::text, x.link_class, x.confidence,
    (SELECT count(*) FROM (
        SELECT 1 FROM dream_link d WHERE d.source_id = b.id
        UNION ALL SELECT 1 FROM dream_link d WHERE d.target_id = b.id
        LIMIT %(cap)s) c)
FROM (
    SELECT l.source_id::text AS seed, l.target_id AS other_id, l.link_class, l.confidence
    FROM dream_link l
    WHERE l.source_id = ANY(%(seeds)s::uuid[]) AND l.scope_id = ANY(%(scopes)s)
      AND l.link_class IN ('topical', 'factual', 'causal', 'recurrent')
      AND l.confidence >= %(min)s
      AND (l.link_class <> 'recurrent' OR l.confidence >= %(min_recurrent)s)
    UNION ALL
    SELECT l.target_id::text, l.source_id, l.link_class, l.confidence
    FROM dream_link l
    WHERE l.target_id = ANY(%(seeds)s::uuid[]) AND l.scope_id = ANY(%(scopes)s)
      AND l.link_class IN ('topical', 'factual', 'causal', 'recurrent')
      AND l.confidence >= %(min)s
      AND (l.link_class <> 'recurrent' OR l.confidence >= %(min_recurrent)s)
) x
JOIN ctx_block b ON b.id = x.other_id AND NOT b.archived AND b.scope_id = ANY(%(scopes)s)
     AND b.type <> 'digest'
"""


@dataclass(frozen=True)
class Edge:
    seed: str
    other: str
    link_class: str
    confidence: float
    degree: int

    @property
    def strength(self) -> float:
        """Confidence x class weight x hub damping, in 0..1."""
        damp = min(1.0, math.sqrt(HUB_DEGREE / max(1, self.degree)))
        return self.confidence * CLASS_WEIGHTS[self.link_class] * damp


def _edges(seeds: list[str], scopes: list[int], cfg: dict[str, Any]) -> list[Edge]:
    with connection.cursor() as cur:
        cur.execute(
            _EXPAND,
            {
                "seeds": seeds,
                "scopes": scopes,
                "min": cfg["CTX_GRAPH_MIN_CONFIDENCE"],
                "min_recurrent": cfg["CTX_GRAPH_MIN_RECURRENT"],
                "cap": DEGREE_CAP,
            },
        )
        return [Edge(r[0], r[1], r[2], float(r[3]), int(r[4])) for r in cur.fetchall()]


def per_seed(edges: list[Edge], cap: int, seeds: list[str]) -> list[Edge]:
    """The `cap` strongest edges of every seed, seeds in rank order (pure)."""
    by_seed: dict[str, list[Edge]] = {}
    for edge in edges:
        if edge.other != edge.seed:
            by_seed.setdefault(edge.seed, []).append(edge)
    out: list[Edge] = []
    for seed in seeds:
        ranked = sorted(by_seed.get(seed, []), key=lambda e: (-e.strength, e.other))
        out.extend(ranked[:cap])
    return out


class GraphExpansion(Stage):
    """Follow confident links from the top results: boost neighbours already present and
    bring in a few new ones just below the top."""

    name = "graph"

    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        cfg = knobs.values(qc.principal.tenant_id)  # live, tenants may tune it
        if not hits or hits[0].score <= 0 or cfg["CTX_GRAPH_SEEDS"] == 0:
            qc.explain[self.name] = "skipped: no seeds"
            return hits
        top = hits[0].score
        seeds = [h.id for h in hits[: cfg["CTX_GRAPH_SEEDS"]] if h.score >= 0.5 * top]
        scopes = sorted(qc.principal.read_scope_ids)
        chosen = per_seed(_edges(seeds, scopes, cfg), cfg["CTX_GRAPH_PER_SEED"], seeds)
        by_id = {h.id: h for h in hits}
        boosted = _boost(chosen, by_id, cfg["CTX_GRAPH_BOOST"])
        added = _inject(chosen, by_id, top, cfg, qc.filters)
        qc.explain[self.name] = {"seeds": seeds, "boosted": boosted, "added": added}
        return sorted(hits + [by_id[i] for i in added], key=lambda h: h.score, reverse=True)


def _boost(edges: list[Edge], by_id: dict[str, Hit], boost: float) -> dict[str, float]:
    """A neighbour already in the results gains up to `boost` (relative), once: its
    strongest edge counts."""
    best: dict[str, Edge] = {}
    for edge in edges:
        if edge.other in by_id and (
            edge.other not in best or edge.strength > best[edge.other].strength
        ):
            best[edge.other] = edge
    done: dict[str, float] = {}
    for other, edge in best.items():
        factor = 1.0 + boost * edge.strength
        by_id[other].score *= factor
        by_id[other].stages["graph"] = {"boost": round(factor, 4), "via": edge.seed}
        done[other] = round(factor, 4)
    return done


def _inject(
    edges: list[Edge],
    by_id: dict[str, Hit],
    top: float,
    cfg: dict[str, Any],
    filters: Filters | None,
) -> list[str]:
    """New neighbours enter at injection x top score x strength, at most CTX_GRAPH_MAX_NEW."""
    best: dict[str, Edge] = {}
    for edge in edges:
        if edge.other not in by_id and (
            edge.other not in best or edge.strength > best[edge.other].strength
        ):
            best[edge.other] = edge
    ranked = sorted(best.values(), key=lambda e: (-e.strength, e.other))[: cfg["CTX_GRAPH_MAX_NEW"]]
    new = [
        Hit(
            id=e.other,
            score=cfg["CTX_GRAPH_INJECTION"] * top * e.strength,
            fused=0.0,
            stages={"graph": {"via": e.seed, "link_class": e.link_class}},
        )
        for e in ranked
    ]
    kept = [h for h in attach_blocks(new) if h.block is not None and allowed(h.block, filters)]
    for hit in kept:
        by_id[hit.id] = hit
    return [h.id for h in kept]


def allowed(block: Block, filters: Filters | None) -> bool:
    """Whether the query's own filters would have let this block in (periods aside)."""
    if filters is None:
        return True
    checks = (
        block.scope_id in filters.scope_ids,
        not filters.category or block.category == filters.category,
        block.category not in filters.categories_exclude,
        not (filters.hide_tool_output and is_tool_output(block.category)),
        set(filters.tags) <= set(block.tags),
        not filters.types or block.type in filters.types,
        block.type not in filters.types_exclude,
        filters.as_of is None or _valid_at(block, filters.as_of),
    )
    return all(checks)


def _valid_at(block: Block, moment: datetime) -> bool:
    return (block.valid_from is None or block.valid_from <= moment) and (
        block.valid_to is None or block.valid_to >= moment
    )
