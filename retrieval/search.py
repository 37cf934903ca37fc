"""Running the arms' statement and fusing its rows into typed hits."""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, Q

from ctx import knobs
from ctx.models import Block
from retrieval import confidence, fusion, termstats
from retrieval.sql import ARMS, LEXICAL_ARMS, MAX_TERMS, ArmWeights, Filters, LexicalTerms, arms_sql
from retrieval.text import content_words, lexical_query, wants_title_arm

PREVIEW_CHARS = 240
_SPACE = re.compile(r"\s+")


@dataclass
class Hit:
    """One candidate through the pipeline; stages adjust `score` and note what they did.

    `fused` is the fusion score before any stage; `arms` holds each arm's raw score and rank
    for this block, so a stage that changes one arm (query feedback) can fuse again;
    `relevance` is set last, from the final scores.
    """

    id: str
    score: float
    fused: float
    arms: dict[str, dict[str, float]] = field(default_factory=dict)
    block: Block | None = None
    stages: dict[str, Any] = field(default_factory=dict)
    relevance: float = 0.0  # the score shown: a share of the best hit's (retrieval/relevance.py)


@dataclass
class Retrieval:
    """What one run of the arms found: raw scores per arm, for fusing now and again later."""

    weights: ArmWeights
    arms: list[fusion.ArmScores]
    parts: list[list[fusion.ArmScores]] = field(default_factory=list)  # sub-queries' arms

    def restricted(self, keep: set[str]) -> Retrieval:
        """The same scores for the `keep` candidates only."""

        def only(arms: list[fusion.ArmScores]) -> list[fusion.ArmScores]:
            return [
                fusion.ArmScores(a.arm, a.weight, {i: s for i, s in a.scores.items() if i in keep})
                for a in arms
            ]

        return Retrieval(self.weights, only(self.arms), [only(p) for p in self.parts])

    def arm(self, name: str) -> fusion.ArmScores | None:
        """The query's own arm of that name, if it ran."""
        return next((a for a in self.arms if a.arm == name), None)

    def every_arm(self) -> list[fusion.ArmScores]:
        """The query's arms and its compared parts' arms."""
        return self.arms + [a for p in self.parts for a in p]

    def fused(self) -> dict[str, float]:
        """Fused scores of every candidate: the query's own, or a sub-query's when higher."""
        if self.weights.method == "rrf":
            return fusion.rrf_fusion(self.every_arm(), self.weights.k)
        ids = fusion.candidates(self.every_arm())
        best = fusion.score_fusion(self.arms, ids)
        for part in self.parts:
            for i, s in fusion.score_fusion(part, ids).items():
                best[i] = max(best[i], s)
        return fusion.positive(best)

    def replace_arm(self, arm: str, scores: dict[str, float]) -> None:
        self.arms = [
            fusion.ArmScores(a.arm, a.weight, scores) if a.arm == arm else a for a in self.arms
        ]


def preview(text: str) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1].rstrip() + "…"


def preview_at(text: str, query: str) -> str:
    """The preview, or, when the first of the query's words comes later than the preview
    reaches, the part of the text around it: a long conversation window's opening lines need
    not hold what was searched."""
    flat = _SPACE.sub(" ", text).strip()
    at = confidence.first_match(query, flat)
    if at is None or at < PREVIEW_CHARS * 2 // 3:
        return preview(flat)
    # from a transcript message's "[time] role:" when near, else a few words before
    start = flat.rfind("[", max(0, at - PREVIEW_CHARS // 2), at)
    if start == -1:
        start = flat.find(" ", max(0, at - PREVIEW_CHARS // 4)) + 1
        start = start if 0 < start <= at else at
    return "…" + preview(flat[start:])


# Windows the semantic arm reads per block it returns: several windows of one block may lead.
CHUNK_POOL_FACTOR = 2


def pool_size(limit: int) -> int:
    """Candidates each arm ranks: enough headroom for fusion and later re-ranking."""
    return max(50, limit * 5)


# Scope sizes (N of BM25's idf): counted exactly up to this many blocks (an index scan with a
# LIMIT), above it the full count is cached per scope set for a minute, with whether every
# scope has its document frequencies counted (retrieval/termstats.py). The exact count grows
# with the scope (8.5 ms of every query at 10k blocks, profiled), and past a few thousand
# blocks a minute's writes move N by too little to change a ranking.
N_EXACT_UP_TO = 2_000
_N_TTL_S = 60.0


class _PerScopes:
    """Values per scope set for _N_TTL_S seconds; past 4,096 scope sets it starts over rather
    than grow."""

    def __init__(self) -> None:
        self._items: dict[tuple[int, ...], tuple[float, Any]] = {}

    def get(self, scope_ids: list[int]) -> Any:
        found = self._items.get(tuple(sorted(scope_ids)))
        return found[1] if found and found[0] > time.monotonic() else None

    def put(self, scope_ids: list[int], value: Any) -> None:
        if len(self._items) >= 4096:
            self._items.clear()
        self._items[tuple(sorted(scope_ids))] = (time.monotonic() + _N_TTL_S, value)

    def clear(self) -> None:
        self._items.clear()


@dataclass(frozen=True)
class ScopeSize:
    blocks: int
    counted: tuple[int, ...] = ()  # scopes whose df come from ctx_termstat (termstats.py)


_sizes = _PerScopes()


def scope_size(scope_ids: list[int]) -> ScopeSize:
    """How many live blocks the scopes hold (BM25's N)."""
    cached: ScopeSize | None = _sizes.get(scope_ids)
    if cached is not None:  # only past N_EXACT_UP_TO: a capped count would reach its cap again
        return cached
    sql = (
        "SELECT count(*) FROM (SELECT 1 FROM ctx_block b WHERE b.scope_id = ANY(%s)"
        " AND NOT b.archived LIMIT %s) c"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [scope_ids, N_EXACT_UP_TO])
        n = int(cur.fetchone()[0])
        if n >= N_EXACT_UP_TO:
            cur.execute(
                "SELECT count(*) FROM ctx_block b WHERE b.scope_id = ANY(%s) AND NOT b.archived",
                [scope_ids],
            )
            n = int(cur.fetchone()[0])
    large = n >= knobs.value("CTX_FTS_STATS_FROM")
    size = ScopeSize(n, termstats.counted(scope_ids) if large else ())
    if n >= N_EXACT_UP_TO:
        _sizes.put(scope_ids, size)
    return size


_WINDOWS_SAMPLE = """SELECT count(*)::float8 / greatest(count(DISTINCT b.id), 1) FROM (
    SELECT id FROM ctx_block WHERE scope_id = ANY(%s) AND NOT archived
    AND embedding IS NOT NULL LIMIT 1000) b JOIN ctx_blockchunk c ON c.block_id = b.id"""


_factors = _PerScopes()


def windows_per_block(scope_ids: list[int]) -> float:
    """How many windows the scopes' blocks have on average (a sample of 1,000 embedded blocks:
    7 ms at 92k, cached a minute per scope set); 0 before any is embedded."""
    cached: float | None = _factors.get(scope_ids)
    if cached is not None:
        return cached
    with connection.cursor() as cur:
        cur.execute(_WINDOWS_SAMPLE, [scope_ids])
        ratio = float(cur.fetchone()[0] or 0.0)
    _factors.put(scope_ids, ratio)
    return ratio


def window_factor(scope_ids: list[int]) -> float:
    """Windows the semantic arm reads per block it returns: as many as the scopes' blocks have
    on average, between 1 and CHUNK_POOL_FACTOR. The HNSW scan costs about what it returns: at
    92k one-window blocks, 2 windows per wanted block made the semantic arm ~12 instead of
    ~7 ms for the same recall. Scopes of long blocks (LongMemEval's sessions) keep the factor."""
    return min(float(CHUNK_POOL_FACTOR), max(1.0, windows_per_block(scope_ids)))


def df_cap(n_docs: int) -> int:
    """Document frequencies are counted up to this: past a tenth of the scope a term is
    common anyway, and counting every match of a common word would cost a heap visit each."""
    return max(2_000, n_docs // 10)


def lexical_terms(text: str, iso_dates: list[str] | None = None) -> LexicalTerms:
    """Distinct content words (lower-cased) and ISO-date phrases, MAX_TERMS at most."""
    words = list(dict.fromkeys(w.lower() for w in content_words(text)))
    phrases = list(dict.fromkeys(iso_dates or []))[:7]
    return LexicalTerms(tuple(words[: MAX_TERMS - len(phrases)]), tuple(phrases))


def run_arms(
    *,
    query: str,
    filters: Filters,
    limit: int,
    weights: ArmWeights,
    query_vector: list[float] | None = None,
    terms: dict[str, LexicalTerms] | None = None,
) -> list[fusion.ArmScores]:
    """Every arm that can run for this query, in one statement; raw scores per arm."""
    terms = terms or {}
    title_text = lexical_query(query) if wants_title_arm(query) else ""
    arms = tuple(
        a
        for a in ARMS
        if weights.of(a) > 0
        and (a != "semantic" or query_vector is not None)
        and (a != "title" or title_text != "")
        and (a not in LEXICAL_ARMS or terms.get(a, LexicalTerms()).count() > 0)
    )
    if not arms:
        return []
    semantic = "semantic" in arms
    lexical = any(a in LEXICAL_ARMS for a in arms)
    size = scope_size(filters.scope_ids) if semantic or lexical else ScopeSize(0)
    factor = window_factor(filters.scope_ids) if semantic else CHUNK_POOL_FACTOR
    exact = semantic and _exact_pays(size, windows_per_block(filters.scope_ids))
    scan = lexical and _scan_pays(size)
    sql, params = arms_sql(filters=filters, arms=arms, terms=terms, exact=exact, scan=scan)
    n_docs = size.blocks
    params.update(
        q_title=title_text,
        qvec=vector_literal(query_vector) if query_vector is not None else None,
        pool=pool_size(limit),
        chunk_pool=math.ceil(pool_size(limit) * factor),
        n_docs=n_docs,
        df_cap=df_cap(n_docs),
        counted_scopes=list(size.counted),
        uncounted_scopes=[i for i in filters.scope_ids if i not in size.counted],
        match_budget=knobs.value("CTX_FTS_MATCH_BUDGET"),
    )
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = cur.fetchall()
    found: dict[str, dict[str, float]] = {a: {} for a in arms}
    for arm, block_id, score in rows:
        found[arm][str(block_id)] = float(score)
    return [fusion.ArmScores(a, weights.of(a), found[a]) for a in arms]


def _exact_pays(size: ScopeSize, per_block: float) -> bool:
    """Reading every window beats the HNSW index for small scopes: the graph is shared by all
    tenants, and a small scope's rows are few among those it walks past (a 1,000-block tenant
    among a million blocks, bench/scale.py). 4-5 µs a window: past a few thousand windows
    the graph wins again. Exact is also exact."""
    return size.blocks * per_block <= knobs.value("CTX_QUERY_EXACT_WINDOWS")


# A small scope's full-text arms read its rows instead of the GIN indexes when the table holds
# at least this many times more blocks: an index's posting lists grow with every tenant's rows,
# the scope's rows do not. In a table of about the scope's size the index is cheaper (about
# 0.3 µs a row and term read directly: 11 ms for three arms of 8 terms at 1,500 blocks).
SCAN_TABLE_RATIO = 20
_table = _PerScopes()


def table_blocks() -> int:
    """The planner's estimate of ctx_block's rows (0 before the first ANALYZE), a minute."""
    cached: int | None = _table.get([])
    if cached is not None:
        return cached
    with connection.cursor() as cur:
        cur.execute("SELECT reltuples FROM pg_class WHERE oid = 'ctx_block'::regclass")
        found = max(0, int(cur.fetchone()[0]))
    _table.put([], found)
    return found


def _scan_pays(size: ScopeSize) -> bool:
    """Reading a small scope's rows beats the shared GIN indexes among many blocks: a common
    term's posting list held 25,902 rows for a 1,000-block tenant among a million (4-20 ms an
    arm, bench/scale.py), its own rows cost ~1 ms an arm. The same matches either way."""
    limit = knobs.value("CTX_QUERY_SCAN_BLOCKS")
    return 0 < size.blocks <= limit and size.blocks * SCAN_TABLE_RATIO <= table_blocks()


def hits_from(retrieval: Retrieval, limit: int | None = None) -> list[Hit]:
    """Hits best first by fused score, each with its arms' scores and ranks."""
    fused = retrieval.fused()
    ranks = {
        a.arm: {i: r for r, i in enumerate(fusion.ranked(dict(a.scores)), start=1)}
        for a in retrieval.arms
    }
    order = fusion.ranked(fused)[:limit] if limit else fusion.ranked(fused)
    hits = []
    for i in order:
        arms = {
            a.arm: {"rank": ranks[a.arm][i], "score": round(a.scores[i], 6)}
            for a in retrieval.arms
            if i in a.scores
        }
        hits.append(Hit(id=i, score=fused[i], fused=fused[i], arms=arms))
    return hits


def run_fused(
    *,
    query: str,
    filters: Filters,
    limit: int,
    weights: ArmWeights | None = None,
    query_vector: list[float] | None = None,
    lexical: str | None = None,
    queries: dict[str, str] | None = None,
    iso_dates: list[str] | None = None,
) -> list[Hit]:
    """Hits ordered by fused score (one statement, fusion in Python).

    `lexical` is the text for the full-text arms (default: the query); `queries` may give each
    language arm its own text; `iso_dates` join as exact phrases.
    """
    weights = weights or ArmWeights()
    retrieval = Retrieval(
        weights=weights,
        arms=run_arms(
            query=query,
            filters=filters,
            limit=limit,
            weights=weights,
            query_vector=query_vector,
            terms=arm_terms(query if lexical is None else lexical, queries, iso_dates),
        ),
    )
    return hits_from(retrieval, limit)


def arm_terms(
    lexical: str, queries: dict[str, str] | None = None, iso_dates: list[str] | None = None
) -> dict[str, LexicalTerms]:
    per_lang = queries or {}
    return {
        arm: lexical_terms(per_lang.get(cfg, lexical), iso_dates)
        for arm, cfg in LEXICAL_ARMS.items()
    }


def vector_literal(vec: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vec) + "]"


def attach_blocks(hits: list[Hit], *, vectors: bool = True, scopes: bool = True) -> list[Hit]:
    """Load the hits' blocks in one query; the tsvectors (never read in Python, and the
    largest columns of a long block) stay in the database. With `vectors=False` the block
    vector stays there too and `has_vector` says whether there is one: parsing 50 vectors of
    384 floats from text was a fifth of a small scope's query time (profiled). With
    `scopes=False` the caller names scopes itself (the scope rows cost 1 of 3 ms for 50)."""
    qs = Block.objects.defer("tsv_en", "tsv_de", "tsv_simple")
    if scopes:
        qs = qs.select_related("scope")
    if not vectors:
        qs = qs.defer("embedding").annotate(
            has_vector=ExpressionWrapper(Q(embedding__isnull=False), output_field=BooleanField())
        )
    found = qs.in_bulk([h.id for h in hits])
    by_id = {str(pk): block for pk, block in found.items()}
    for hit in hits:
        hit.block = by_id.get(hit.id)
    return [h for h in hits if h.block is not None]


def block_vectors(ids: list[str]) -> dict[str, list[float]]:
    """The block vectors of a few blocks (those attach_blocks(vectors=False) left out)."""
    if not ids:
        return {}
    rows = Block.objects.filter(pk__in=ids, embedding__isnull=False).values_list("id", "embedding")
    return {str(pk): [float(x) for x in vec] for pk, vec in rows if vec is not None}
