"""The fused search statement: every arm and the weighted RRF in one SQL round trip.

Each arm ranks its own candidate pool with the scope and filter predicates inside it (so a
filter never starves an arm), then the arms' ranks are fused by weighted reciprocal rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.conf import settings

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
    as_of: datetime | None = None  # only facts valid at that moment
    periods: list[tuple[date, date]] = field(default_factory=list)  # said or dated within

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
        if self.as_of is not None:
            parts.append(
                "(b.valid_from IS NULL OR b.valid_from <= %(as_of)s)"
                " AND (b.valid_to IS NULL OR b.valid_to >= %(as_of)s)"
            )
            params["as_of"] = self.as_of
        if self.periods:
            parts.append(_PERIODS)
            params["period_starts"] = [p[0] for p in self.periods]
            params["period_ends"] = [p[1] for p in self.periods]
            params["tz"] = settings.TIME_ZONE
        return " AND ".join(parts), params


# A block is "in" a period when it was said then or mentions a date inside it.
_PERIODS = """EXISTS (SELECT 1 FROM unnest(%(period_starts)s::date[], %(period_ends)s::date[])
    AS p(s, e) WHERE (coalesce(b.source_time, b.created_at) AT TIME ZONE %(tz)s)::date
    BETWEEN p.s AND p.e OR EXISTS (SELECT 1 FROM unnest(b.content_times) t
    WHERE (t AT TIME ZONE 'UTC')::date BETWEEN p.s AND p.e))"""


@dataclass(frozen=True)
class ArmWeights:
    semantic: float = 0.45
    fts_en: float = 0.25
    fts_de: float = 0.20
    title: float = 0.10
    k: int = 60

    def of(self, arm: str) -> float:
        return float(getattr(self, arm))


def _fts_arm(cfg: str, where: str, iso_dates: int = 0) -> str:
    column = "tsv_en" if cfg == "english" else "tsv_de"
    # ISO dates join as phrases: the parser splits "2025-03-14" into three tokens, and OR-ing
    # those singly would match every text that mentions 2025.
    phrases = "".join(f" || phraseto_tsquery('{cfg}', %(iso_{i})s)" for i in range(iso_dates))
    return f"""SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rnk FROM (
        SELECT b.id, ts_rank(b.{column}, q.tsq, 1) AS score
        FROM ctx_block b, (SELECT {_OR_QUERY.format(cfg=cfg)}{phrases} AS tsq) q
        WHERE b.{column} @@ q.tsq AND {where}
        ORDER BY score DESC LIMIT %(pool)s) s"""


def _title_arm(where: str) -> str:
    # Both operators are indexable with the title on the right side; `q <% title` finds a
    # short query inside a longer title ("kubernets" in "Kubernetes upgrade").
    return f"""SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rnk FROM (
        SELECT b.id, greatest(similarity(b.title, %(q_raw)s),
                              word_similarity(%(q_raw)s, b.title)) AS score
        FROM ctx_block b
        WHERE (b.title %% %(q_raw)s OR %(q_raw)s <%% b.title) AND {where}
        ORDER BY score DESC LIMIT %(pool)s) s"""


def _semantic_arm(where: str) -> str:
    # A block ranks by its best window. The inner ORDER BY … LIMIT lets the HNSW index drive
    # the scan (iterative scan keeps going while the block filters reject rows).
    return f"""SELECT id, 1 - dist AS score, row_number() OVER (ORDER BY dist, id) AS rnk FROM (
        SELECT block_id AS id, min(dist) AS dist FROM (
            SELECT c.block_id, c.embedding <=> %(qvec)s::vector AS dist
            FROM ctx_blockchunk c JOIN ctx_block b ON b.id = c.block_id
            WHERE {where}
            ORDER BY c.embedding <=> %(qvec)s::vector LIMIT %(chunk_pool)s) w
        GROUP BY block_id ORDER BY dist LIMIT %(pool)s) s"""


def fused_search_sql(
    *,
    filters: Filters,
    weights: ArmWeights,
    with_semantic: bool,
    arms: tuple[str, ...] = ARMS,
    iso_dates: int = 0,
) -> tuple[str, dict[str, Any]]:
    """The statement and its static params; callers add q_english, q_german, q_raw, qvec, pool,
    limit. Rows: id, rrf, then rank and score per arm (NULL where an arm did not find it)."""
    where, params = filters.sql()
    builders = {
        "semantic": lambda: _semantic_arm(where),
        "fts_en": lambda: _fts_arm("english", where, iso_dates),
        "fts_de": lambda: _fts_arm("german", where, iso_dates),
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
        for a in ARMS  # every arm has its two columns, so rows parse by position
    )
    sql = f"""WITH {ctes},
    fused AS (SELECT id, sum(part) AS rrf FROM ({union}) u GROUP BY id)
    SELECT f.id, f.rrf, {cols}
    FROM fused f {joins}
    ORDER BY f.rrf DESC, f.id LIMIT %(limit)s"""
    return sql, params
