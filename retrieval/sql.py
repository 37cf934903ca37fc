"""The fused search statement: every arm and the weighted RRF in one SQL round trip.

Each arm ranks its own candidate pool with the scope and filter predicates inside it (so a
filter never starves an arm), then the arms' ranks are fused by weighted reciprocal rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Arms, in the order their ranks are reported in `explain`.
ARMS = ("semantic", "fts_en", "fts_de", "title")

# OR-semantics for full text: a natural-language question rarely has every word in one block.
_OR_QUERY = "replace(plainto_tsquery('{cfg}', %(q_{cfg})s)::text, '&', '|')::tsquery"


@dataclass(frozen=True)
class Filters:
    scope_ids: list[int]
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    types_exclude: list[str] = field(default_factory=list)
    include_superseded: bool = True

    def sql(self) -> tuple[str, dict[str, Any]]:
        parts = ["b.scope_id = ANY(%(scope_ids)s)", "NOT b.archived"]
        params: dict[str, Any] = {"scope_ids": self.scope_ids}
        if self.category:
            parts.append("b.category = %(category)s")
            params["category"] = self.category
        if self.tags:
            parts.append("b.tags @> %(tags)s::varchar[]")
            params["tags"] = self.tags
        if self.types:
            parts.append("b.type = ANY(%(types)s)")
            params["types"] = self.types
        if self.types_exclude:
            parts.append("NOT (b.type = ANY(%(types_exclude)s))")
            params["types_exclude"] = self.types_exclude
        return " AND ".join(parts), params


@dataclass(frozen=True)
class ArmWeights:
    semantic: float = 0.45
    fts_en: float = 0.25
    fts_de: float = 0.20
    title: float = 0.10
    k: int = 60

    def of(self, arm: str) -> float:
        return float(getattr(self, arm))


def _fts_arm(cfg: str, where: str) -> str:
    column = "tsv_en" if cfg == "english" else "tsv_de"
    return f"""SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rnk FROM (
        SELECT b.id, ts_rank_cd(b.{column}, q.tsq, 32) AS score
        FROM ctx_block b, (SELECT {_OR_QUERY.format(cfg=cfg)} AS tsq) q
        WHERE b.{column} @@ q.tsq AND {where}
        ORDER BY score DESC LIMIT %(pool)s) s"""


def _title_arm(where: str) -> str:
    # `<%` is word similarity: a short title inside a longer query still matches.
    return f"""SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rnk FROM (
        SELECT b.id, word_similarity(b.title, %(q_raw)s) AS score
        FROM ctx_block b
        WHERE (b.title %% %(q_raw)s OR b.title <%% %(q_raw)s) AND {where}
        ORDER BY score DESC LIMIT %(pool)s) s"""


def _semantic_arm(where: str) -> str:
    # The inner ORDER BY … LIMIT is what lets the HNSW index drive the scan.
    return f"""SELECT id, 1 - dist AS score, row_number() OVER (ORDER BY dist, id) AS rnk FROM (
        SELECT b.id, b.embedding <=> %(qvec)s::vector AS dist
        FROM ctx_block b
        WHERE b.embedding IS NOT NULL AND {where}
        ORDER BY b.embedding <=> %(qvec)s::vector LIMIT %(pool)s) s"""


def fused_search_sql(
    *, filters: Filters, weights: ArmWeights, with_semantic: bool, arms: tuple[str, ...] = ARMS
) -> tuple[str, dict[str, Any]]:
    """The statement and its static params; callers add q_english, q_german, q_raw, qvec, pool,
    limit. Rows: id, rrf, then rank and score per arm (NULL where an arm did not find it)."""
    where, params = filters.sql()
    builders = {
        "semantic": lambda: _semantic_arm(where),
        "fts_en": lambda: _fts_arm("english", where),
        "fts_de": lambda: _fts_arm("german", where),
        "title": lambda: _title_arm(where),
    }
    active = [a for a in arms if (a != "semantic" or with_semantic) and weights.of(a) > 0]
    ctes = ",\n".join(f"{a} AS ({builders[a]()})" for a in active)
    union = " UNION ALL ".join(
        f"SELECT id, {weights.of(a)!r}::float8 / ({weights.k} + rnk) AS part FROM {a}"
        for a in active
    )
    joins = "\n".join(f"LEFT JOIN {a} ON {a}.id = f.id" for a in active)
    cols = ", ".join(
        f"{a}.rnk AS {a}_rank, {a}.score AS {a}_score"
        if a in active
        else f"NULL::bigint AS {a}_rank, NULL::float8 AS {a}_score"
        for a in arms
    )
    sql = f"""WITH {ctes},
    fused AS (SELECT id, sum(part) AS rrf FROM ({union}) u GROUP BY id)
    SELECT f.id, f.rrf, {cols}
    FROM fused f {joins}
    ORDER BY f.rrf DESC, f.id LIMIT %(limit)s"""
    return sql, params
