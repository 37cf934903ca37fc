"""The arms' statement: every arm's candidates and raw scores in one SQL round trip.

Each arm ranks its own candidate pool with the scope and filter predicates inside it (so a
filter never starves an arm) and reports its raw scores; fusion (z-scores by default, weighted
reciprocal rank by setting) happens in Python, retrieval/fusion.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from django.conf import settings

from ctx.models import TOOL_OUTPUT_CATEGORIES

# Arms, in the order their scores are reported in `explain`.
ARMS = ("semantic", "fts_en", "fts_de", "fts_simple", "title")
LEXICAL_ARMS = {"fts_en": "english", "fts_de": "german", "fts_simple": "simple"}
# Each text configuration's column and the SQL function its text (and the query's) goes
# through first, so that both sides fold accents alike (migration ctx 0018). Only `simple`
# folds: folding before the language stemmers cost German search on XQuAD-R.
COLUMNS = {"english": "tsv_en", "german": "tsv_de", "simple": "tsv_simple"}
NORMALIZERS = {"english": "", "german": "", "simple": "ctx_simple_text"}
MAX_TERMS = 16  # words plus ISO-date phrases per full-text arm; bounds the statement's work

# BM25 (k1, b) for the full-text arms. ts_rank of one term occurrence in the content (weight B)
# is 0.4 / 1.645 ~ 0.2432; dividing by it makes one content occurrence a term frequency of 1,
# repeats saturate towards 1.645 and a title occurrence (weight A) counts 2.5: a BM25F-style
# title boost with PostgreSQL's own position weighting.
BM25_K1 = 1.2
BM25_B = 0.75
TS_RANK_ONE = 0.4 / 1.64493406685


@dataclass(frozen=True)
class Filters:
    scope_ids: list[int]
    category: str | None = None
    categories_exclude: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    types_exclude: list[str] = field(default_factory=list)
    include_superseded: bool = True
    # The sandbox's indexed output (ctx.models.TOOL_OUTPUT_CATEGORIES) left out: by default,
    # unless a caller names a category.
    hide_tool_output: bool = False
    as_of: datetime | None = None  # only facts valid at that moment
    periods: list[tuple[date, date]] = field(default_factory=list)  # said or dated within
    # The blocks of a selective period, found through the anchors' date index: the arms then
    # rank just these (the semantic arm exactly) instead of scanning the HNSW index past
    # every block the period filter rejects.
    block_ids: tuple[str, ...] | None = None

    def sql(self) -> tuple[str, dict[str, Any]]:
        parts = ["b.scope_id = ANY(%(scope_ids)s)", "NOT b.archived"]
        params: dict[str, Any] = {"scope_ids": self.scope_ids}
        if self.category:
            parts.append("b.category = %(category)s")
            params["category"] = self.category
        if self.categories_exclude:
            parts.append("NOT (b.category = ANY(%(categories_exclude)s::varchar[]))")
            params["categories_exclude"] = self.categories_exclude
        if self.hide_tool_output:
            parts.append("NOT (b.category LIKE ANY(%(tool_output)s::varchar[]))")
            params["tool_output"] = [f"{prefix}%" for prefix in TOOL_OUTPUT_CATEGORIES]
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
        if self.block_ids is not None:
            parts.append("b.id = ANY(%(block_ids)s::uuid[])")
            params["block_ids"] = list(self.block_ids)
        return " AND ".join(parts), params


# A block is "in" a period when it was said then or mentions a date inside it.
_PERIODS = """EXISTS (SELECT 1 FROM unnest(%(period_starts)s::date[], %(period_ends)s::date[])
    AS p(s, e) WHERE (coalesce(b.source_time, b.created_at) AT TIME ZONE %(tz)s)::date
    BETWEEN p.s AND p.e OR EXISTS (SELECT 1 FROM unnest(b.content_times) t
    WHERE (t AT TIME ZONE 'UTC')::date BETWEEN p.s AND p.e))"""


def period_blocks_sql(narrowed: Filters, cap: int) -> tuple[str, dict[str, Any]]:
    """The blocks a period filter admits, found through the anchors' date index: one `year`
    anchor row per meta or content date, the same dates `_PERIODS` tests (so that test, an
    `unnest` with time-zone conversions per row, is left out: ~50 µs a row, profiled)."""
    where, params = replace(narrowed, periods=[]).sql()
    days = " OR ".join(
        f"a.source_date BETWEEN %(ps{i})s AND %(pe{i})s" for i in range(len(narrowed.periods))
    )
    for i, (start, end) in enumerate(narrowed.periods):
        params.update({f"ps{i}": start, f"pe{i}": end})
    params["cap"] = cap
    # No DISTINCT: it would read every row of a long period before the LIMIT applies.
    sql = f"""SELECT b.id FROM ctx_temporalanchor a JOIN ctx_block b ON b.id = a.block_id
        WHERE a.dimension = 'year' AND ({days}) AND {where} LIMIT %(cap)s"""
    return sql, params


@dataclass(frozen=True)
class ArmWeights:
    semantic: float = 0.55
    fts_en: float = 0.25
    fts_de: float = 0.15
    fts_simple: float = 0.10
    title: float = 0.05
    k: int = 60  # RRF only
    method: str = "score"  # retrieval.fusion: "score" or "rrf"

    def of(self, arm: str) -> float:
        return float(getattr(self, arm))

    def for_language(self, lang: str, *, other_script: bool = False) -> ArmWeights:
        """The full-text weight on the arm of the query's language, when it is known.

        Without a translation the other language's arm only sees the query under the wrong
        stemmer and stopwords: on LongMemEval's English questions its German BM25 added noise
        (recall_all@5 0.931 with it, 0.940 with its weight on the English arm). The `simple`
        arm (no stemmer) serves queries of neither language, and words in another script
        ("日本語") inside an English or German query.
        """
        total = self.fts_en + self.fts_de
        weights = self.simple_for(lang, other_script=other_script)
        if lang == "en":
            return replace(weights, fts_en=total, fts_de=0.0)
        if lang == "de":
            return replace(weights, fts_en=0.0, fts_de=total)
        return weights

    def simple_for(self, lang: str, *, other_script: bool) -> ArmWeights:
        """The `simple` arm only for text of neither language or in another script: on every
        German search it ranked 19 XQuAD-R questions worse and 12 better (docs/benchmarks.md)."""
        if lang in ("en", "de") and not other_script:
            return replace(self, fts_simple=0.0)
        return self


@dataclass(frozen=True)
class LexicalTerms:
    """One full-text arm's query: content words and ISO-date phrases, each a BM25 term."""

    words: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()

    def count(self) -> int:
        return len(self.words) + len(self.phrases)


def _term_values(arm: str, cfg: str, terms: LexicalTerms) -> tuple[str, dict[str, Any]]:
    exprs: list[str] = []
    params: dict[str, Any] = {}
    for i, word in enumerate(terms.words):
        params[f"{arm}_w{i}"] = word
        # The simple arm joins a word's characters as a phrase: CJK text is split into them.
        parse = "phraseto_tsquery" if cfg == "simple" else "plainto_tsquery"
        exprs.append(f"{parse}('{cfg}', {NORMALIZERS[cfg]}(%({arm}_w{i})s))")
    # ISO dates join as phrases: the parser splits "2025-03-14" into three tokens, and OR-ing
    # those singly would match every text that mentions 2025.
    for i, phrase in enumerate(terms.phrases):
        params[f"{arm}_p{i}"] = phrase
        exprs.append(f"phraseto_tsquery('{cfg}', {NORMALIZERS[cfg]}(%({arm}_p{i})s))")
    values = ", ".join(f"({i}, {e})" for i, e in enumerate(exprs))
    return values, params


def _df_count(column: str, scopes: str, *, scan: bool = False) -> str:
    """Live blocks of the scopes (a parameter's name) matching t.q, counted up to df_cap:
    through the column's GIN index, or (`scan`) in the scopes' rows read once (`scoped`)."""
    # `scoped` holds only the query's scopes' live blocks: nothing more to test there.
    rows, within = (
        ("scoped b", "")
        if scan
        else ("ctx_block b", f" AND b.scope_id = ANY(%({scopes})s) AND NOT b.archived")
    )
    return f"""(SELECT count(*) FROM (SELECT 1 FROM {rows} WHERE b.{column} @@ t.q{within}
        LIMIT %(df_cap)s) c)"""


def _scoped(where: str, columns: list[str]) -> str:
    """The scopes' live blocks with the lexical arms' columns, read once through the scope
    index for every full-text arm of a small scope. Each arm's GIN index holds every tenant's
    rows: a common term's posting list (25,902 rows among a million blocks) was read and ANDed
    with a 1,000-block scope, 4-20 ms an arm (bench/scale.py); testing the scope's own rows
    costs about a microsecond a row and term. `ok` is the query's filter: document frequencies
    count every live block, as through the index."""
    cols = ", ".join(f"b.{c}" for c in columns)
    return f"""scoped AS MATERIALIZED (
        SELECT b.id, b.scope_id, {cols}, ({where}) AS ok FROM ctx_block b
        WHERE b.scope_id = ANY(%(scope_ids)s) AND NOT b.archived)"""


def _fts_arm(arm: str, cfg: str, where: str, terms: LexicalTerms, *, scan: bool = False) -> str:
    """BM25 over one tsvector column: document frequencies counted in the scopes (GIN index,
    capped), N given by the caller, tf from ts_rank, length = distinct lexemes.

    Candidates are the blocks that match the rarest terms, as many terms as fit the match
    budget together (always the rarest one); every term then scores them. A block that only
    shares common words with the query would need all of them to outscore one rare match,
    and reading and ranking every such block was most of this arm's time in a large scope
    (a scope of no more blocks than the budget is never pruned). `scan`: the blocks are the
    small scopes' rows read once (`scoped`), not the GIN index's matches."""
    column = COLUMNS[cfg]
    rows, keep = ("scoped b", "b.ok") if scan else ("ctx_block b", where)
    values, _ = _term_values(arm, cfg, terms)
    # A one-lexeme term's df: the stored counts of the scopes that have them (counted_scopes)
    # plus a count in the others; with none stored (a phrase, a lexeme too rare to be kept,
    # no large scope) it is counted in all of them.
    return f"""{arm}_t AS (
        SELECT t.i, t.q, coalesce(
            (SELECT least(sum(s.df) + CASE WHEN cardinality(%(uncounted_scopes)s::bigint[]) = 0
                          THEN 0 ELSE {_df_count(column, "uncounted_scopes")} END, %(df_cap)s)
             FROM ctx_termstat s
             WHERE s.scope_id = ANY(%(counted_scopes)s::bigint[]) AND s.config = '{cfg}'
               AND numnode(t.q) = 1 AND s.lexeme = trim(both '''' from t.q::text)
             HAVING count(*) > 0),
            {_df_count(column, "scope_ids", scan=scan)})::float8 AS df
        FROM (VALUES {values}) AS t(i, q) WHERE numnode(t.q) > 0),
    {arm}_sel AS (
        SELECT q FROM (SELECT t.q, row_number() OVER w AS rn, sum(t.df) OVER w AS cum
                       FROM {arm}_t t WINDOW w AS (ORDER BY t.df, t.i)) s
        WHERE rn = 1 OR cum <= %(match_budget)s OR %(n_docs)s <= %(match_budget)s),
    {arm}_m AS (
        SELECT b.id, b.{column} AS v, length(b.{column})::float8 AS dl FROM {rows}
        WHERE b.{column} @@ (SELECT string_agg('(' || q::text || ')', ' | ')::tsquery
                             FROM {arm}_sel) AND {keep}),
    {arm} AS (
        SELECT m.id, sum(ln(1 + (greatest(%(n_docs)s, t.df) - t.df + 0.5) / (t.df + 0.5))
                   * r.tf * {BM25_K1 + 1} / (r.tf + {BM25_K1} * (1 - {BM25_B}
                     + {BM25_B} * m.dl / a.avgdl))) AS score
        FROM {arm}_m m CROSS JOIN {arm}_t t
        CROSS JOIN (SELECT greatest(avg(dl), 1) AS avgdl FROM {arm}_m) a
        CROSS JOIN LATERAL (SELECT ts_rank(m.v, t.q, 0) / {TS_RANK_ONE!r} AS tf) r
        WHERE m.v @@ t.q
        GROUP BY m.id ORDER BY score DESC, m.id LIMIT %(pool)s)"""


def _title_arm(where: str) -> str:
    # The query's content words found inside a title (word similarity: "kubernets upgrade" in
    # "Kubernetes upgrade plan"), never the whole-string similarity `title % q`: for a question
    # its index scan returned tens of thousands of candidates that share a few trigrams (1.4 s
    # at 92k blocks, profiled) for titles that merely resemble the question.
    return f"""title AS (
        SELECT b.id, greatest(similarity(b.title, %(q_title)s),
                              word_similarity(%(q_title)s, b.title)) AS score
        FROM ctx_block b
        WHERE %(q_title)s <%% b.title AND {where}
        ORDER BY score DESC, b.id LIMIT %(pool)s)"""


def _exact_semantic_arm(where: str, *, by_ids: bool) -> str:
    # A small set of blocks (a period's, or small scopes'): every window's distance, no index
    # (exact, and no walk through the HNSW graph past the rows the filter rejects: a
    # 1,000-block tenant among a million blocks cost 34 ms that way, bench/scale.py).
    ids = "c.block_id = ANY(%(block_ids)s::uuid[]) AND " if by_ids else ""
    return f"""semantic AS (
        SELECT c.block_id AS id, 1 - min(c.embedding <=> %(qvec)s::vector) AS score
        FROM ctx_blockchunk c JOIN ctx_block b ON b.id = c.block_id
        WHERE {ids}c.scope_id = ANY(%(scope_ids)s) AND {where}
        GROUP BY c.block_id ORDER BY 2 DESC, 1 LIMIT %(pool)s)"""


def _semantic_arm(where: str) -> str:
    # A block ranks by its best window. The inner ORDER BY … LIMIT lets the HNSW index drive
    # the scan (iterative scan keeps going while the block filters reject rows).
    return f"""semantic AS (
        SELECT block_id AS id, 1 - min(dist) AS score FROM (
            SELECT c.block_id, c.embedding <=> %(qvec)s::vector AS dist
            FROM ctx_blockchunk c JOIN ctx_block b ON b.id = c.block_id
            WHERE {where}
            ORDER BY c.embedding <=> %(qvec)s::vector LIMIT %(chunk_pool)s) w
        GROUP BY block_id ORDER BY min(dist), block_id LIMIT %(pool)s)"""


def arms_sql(
    *,
    filters: Filters,
    arms: tuple[str, ...],
    terms: dict[str, LexicalTerms] | None = None,
    exact: bool = False,
    scan: bool = False,
) -> tuple[str, dict[str, Any]]:
    """One statement running `arms`; rows are (arm, id, score), each arm's best `pool` rows.
    `exact`: the semantic arm reads every window of the scopes instead of the HNSW index.
    `scan`: the full-text arms test the scopes' rows instead of the GIN indexes (the same
    results: for small scopes among many blocks).

    Callers add q_title, qvec, pool, chunk_pool, n_docs, df_cap, counted_scopes,
    uncounted_scopes and match_budget. Full-text arms need their `terms`; fusion happens in
    `retrieval.fusion`, over these raw scores.
    """
    where, params = filters.sql()
    terms = terms or {}
    lexical = [a for a in arms if a in LEXICAL_ARMS]
    scan = scan and bool(lexical)
    ctes = [_scoped(where, [COLUMNS[LEXICAL_ARMS[a]] for a in lexical])] if scan else []
    for arm in arms:
        if arm == "semantic":
            by_ids = filters.block_ids is not None
            if exact or by_ids:
                ctes.append(_exact_semantic_arm(where, by_ids=by_ids))
            else:
                ctes.append(_semantic_arm(where))
        elif arm == "title":
            ctes.append(_title_arm(where))
        else:
            arm_terms = terms.get(arm, LexicalTerms())
            ctes.append(_fts_arm(arm, LEXICAL_ARMS[arm], where, arm_terms, scan=scan))
            params.update(_term_values(arm, LEXICAL_ARMS[arm], arm_terms)[1])
    union = " UNION ALL ".join(
        f"SELECT '{a}'::text AS arm, id, score::float8 FROM {a}" for a in arms
    )
    return f"WITH {', '.join(ctes)}\n{union}", params
