"""Hybrid retrieval with fusion, stages, confidence and optional synthesis.

`run_query` takes typed parameters and returns a typed `QueryResult`; parsing requests and
shaping the wire answer belong to the operations layer (qc/ops/search.py), not here.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from django.utils import timezone

from ctx import knobs, masking
from ctx.errors import SensitivityBlocked
from ctx.models import Block
from ctx.principal import Principal
from ctx.trust import allows
from retrieval import confidence, decompose, synthesis, temporal_query, translate
from retrieval.embeddings import embed_queries
from retrieval.fusion import ArmScores, candidates
from retrieval.lexical import SearchParams
from retrieval.llm import get_llm
from retrieval.parallel import map_reads
from retrieval.relevance import evidenced, floored
from retrieval.search import (
    Hit,
    Retrieval,
    arm_terms,
    attach_blocks,
    block_vectors,
    hits_from,
    run_arms,
)
from retrieval.sql import ARMS, ArmWeights, Filters, LexicalTerms
from retrieval.stages import QueryContext, run_stages
from retrieval.text import lexical_query, other_script

log = logging.getLogger("ctx.query")


@dataclass(frozen=True)
class QueryParams:
    search: SearchParams
    synthesize: bool = False
    explain: bool = False
    now: datetime | None = None
    as_of: datetime | None = None
    # The caller's own period filter (days, either end open): strict in every arm, and it
    # takes the place of a period read from the question (which then only lifts by date).
    period: tuple[date, date] | None = None
    stages: tuple[str, ...] | None = None  # None: the configured CTX_QUERY_STAGES
    fusion: str | None = None  # None: the configured CTX_FUSION


@dataclass
class QueryResult:
    """What a query found: the ranked hits (blocks attached), the verdict, the answer when
    one was synthesized, timings and, when asked, the explanation of every stage."""

    query: str
    mode: str  # retrieval | synthesis
    answer: str | None
    confidence: str
    hits: list[Hit]
    now: datetime  # the query's "now": sources' ages are counted from it
    timing_ms: dict[str, float]
    explain: dict[str, Any] | None = None
    scope_names: dict[int, str] = field(default_factory=dict)  # readable scope id -> name


def weights(tenant_id: int | None = None) -> ArmWeights:
    """The fusion weights and method in force for the tenant (live knobs, docs/settings.md)."""
    cfg = knobs.values(tenant_id)
    return ArmWeights(
        semantic=cfg["CTX_FUSION_W_SEMANTIC"],
        fts_en=cfg["CTX_FUSION_W_FTS_EN"],
        fts_de=cfg["CTX_FUSION_W_FTS_DE"],
        fts_simple=cfg["CTX_FUSION_W_FTS_SIMPLE"],
        title=cfg["CTX_FUSION_W_TITLE"],
        k=cfg["CTX_RRF_K"],
        method=cfg["CTX_FUSION"],
    )


def _vectors(
    texts: list[str], explain: dict[str, Any], tenant_id: int | None
) -> list[list[float] | None]:
    """The texts' query embeddings in one batch, or None for each (lexical arms only) when
    the embedder is down or a text holds a secret."""
    try:
        return list(embed_queries(texts, tenant_id))
    except SensitivityBlocked as exc:  # the query holds a secret: it stays on this machine
        explain["embedding"] = {"status": "blocked", **(exc.details or {})}
    except Exception as exc:  # fail open: lexical arms still answer
        log.warning("query embedding failed; lexical arms only", exc_info=True)
        explain["embedding_error"] = type(exc).__name__
    return [None] * len(texts)


def _best_cosine(hits: list[Hit], qvec: list[float] | None) -> float | None:
    """The best of the hits' cosines: the best window's when the semantic arm saw the block,
    else the block's own vector's (loaded here: the query path leaves vectors unloaded)."""
    cosines = [h.arms["semantic"]["score"] for h in hits if "semantic" in h.arms]
    unseen = [h.id for h in hits if "semantic" not in h.arms]
    if qvec is not None and unseen:
        for emb in block_vectors(unseen).values():
            cosines.append(float(sum(a * b for a, b in zip(emb, qvec, strict=False))))  # unit
    return max(cosines) if cosines else None


def _retrieve(qc: QueryContext, params: QueryParams) -> list[Hit]:
    """Fused candidates, restricted to the query's explicit period when that leaves enough."""
    sp = params.search
    filters = sp.filters(qc.principal)
    if not filters.scope_ids:
        return []
    if params.as_of is not None:
        filters = replace(filters, as_of=params.as_of)
    if params.period is not None:
        filters = replace(filters, periods=[params.period])
    qc.filters = filters  # dream: graph expansion keeps added neighbours within the filters
    pool = max(sp.limit * 3, 50)  # stages re-rank a wider pool than the caller sees
    plan = _plan(qc, params.fusion)
    narrowed = None if params.period else _period_filters(qc, filters, sp.limit)
    unfiltered = None
    if narrowed is not None and narrowed.block_ids is None:
        # A long period: its blocks are likely among the unfiltered candidates already, and
        # testing those is far cheaper than the date test inside every arm.
        unfiltered = _run(plan, filters, pool)
        inside = _from_candidates(unfiltered, narrowed)
        if hits := _filling(qc, inside, pool, sp.limit, "candidates"):
            return _answer(qc, inside, hits)
    if narrowed is not None:
        retrieval = _run(plan, narrowed, pool)
        by = "ids" if narrowed.block_ids is not None else "arms"
        if hits := _filling(qc, retrieval, pool, sp.limit, by):
            return _answer(qc, retrieval, hits)
    retrieval = unfiltered or _run(plan, filters, pool)
    return _answer(qc, retrieval, hits_from(retrieval, pool))


def _filling(qc: QueryContext, retrieval: Retrieval, pool: int, limit: int, by: str) -> list[Hit]:
    """The period's hits when they fill the answer, else none (`explain` says how many were
    found and how)."""
    hits = hits_from(retrieval, pool)
    qc.explain["period_filter"] = {"applied": len(hits) >= limit, "found": len(hits), "by": by}
    return hits if len(hits) >= limit else []


def _answer(qc: QueryContext, retrieval: Retrieval, hits: list[Hit]) -> list[Hit]:
    qc.retrieval = retrieval
    if retrieval.parts:  # how many blocks each compared part's own arms found
        qc.explain["parts_found"] = [len(candidates(part)) for part in retrieval.parts]
    return attach_blocks(hits, vectors=False, scopes=False)  # _source names the scope


def _from_candidates(retrieval: Retrieval, narrowed: Filters) -> Retrieval:
    """The unfiltered run's candidates that fall inside the period, as if the arms had only
    seen those (each arm's scores for them, fused again among them)."""
    ids = candidates(retrieval.every_arm())
    # A candidate has a handful of dates at most; the cap only bounds a pathological one.
    found = temporal_query.period_blocks(replace(narrowed, block_ids=tuple(ids)), 50 * len(ids))
    return retrieval.restricted(set(found or ()))


def _period_filters(qc: QueryContext, filters: Filters, limit: int) -> Filters | None:
    """The filters for the query's explicit period, or None when there is none or it holds
    too few blocks to fill the answer (then the arms need not run on it at all). A period
    with more blocks than temporal_query.PERIOD_IDS_UP_TO keeps its dates (block_ids None)."""
    narrowed = temporal_query.period_filter(filters, qc.temporal)
    if narrowed is None:
        return None
    ids = temporal_query.period_blocks(narrowed)
    if ids is None:  # a long period
        return narrowed
    if len(ids) < limit:
        qc.explain["period_filter"] = {"applied": False, "found": len(ids), "by": "ids"}
        return None
    # The ids are the period (the same dates): the arms rank them with no per-row date test.
    return replace(narrowed, block_ids=tuple(ids), periods=[])


@dataclass(frozen=True)
class _Search:
    """One text the arms run for: the query itself or a compared part of it."""

    query: str
    vector: list[float] | None
    terms: dict[str, LexicalTerms]


@dataclass(frozen=True)
class _Plan:
    """What the arms need, worked out once per query (the period filter may run them twice)."""

    weights: ArmWeights
    main: _Search
    parts: list[_Search]


def _plan(qc: QueryContext, fusion: str | None) -> _Plan:
    tenant = qc.principal.tenant_id
    arm_weights = weights(tenant)
    if fusion is not None:  # an evaluation control, like `stages`
        arm_weights = replace(arm_weights, method=fusion)
    lexical = temporal_query.lexical_text(qc.query, qc.temporal)
    lang, texts = _arm_texts(qc, lexical)
    if texts is None:  # untranslated: the other language's arm would only add noise
        arm_weights = arm_weights.for_language(lang, other_script=other_script(qc.query))
    qc.explain["weights"] = {a: arm_weights.of(a) for a in ARMS}
    terms = arm_terms(lexical, texts, temporal_query.iso_dates(qc.temporal))
    if qc.parts:
        qc.explain["decomposed"] = list(qc.parts)
    return _Plan(
        weights=arm_weights,
        main=_Search(qc.query, qc.query_vector, terms),
        parts=[_Search(p, vector, arm_terms(p)) for p, vector in qc.parts.items()],
    )


def _run(plan: _Plan, filters: Filters, pool: int) -> Retrieval:
    """The query's arms, plus each compared part's arms when the question compares things."""

    def arms(search: _Search, limit: int) -> list[ArmScores]:
        return run_arms(
            query=search.query,
            filters=filters,
            limit=limit,
            weights=plan.weights,
            query_vector=search.vector,
            terms=search.terms,
        )

    # A part names one thing ("a bus", "the train"): its best few blocks are what it adds.
    # Full pools made a comparison question three times as slow as another (92k blocks).
    jobs = [(plan.main, pool), *((part, PART_POOL) for part in plan.parts)]
    main, *parts = map_reads(lambda job: arms(*job), jobs)  # at once on a pooled server
    return Retrieval(weights=plan.weights, arms=main, parts=parts)


PART_POOL = 10  # run_arms limit for a compared part (each arm then ranks 50 candidates)


def _arm_texts(qc: QueryContext, lexical: str) -> tuple[str, dict[str, str] | None]:
    """The query's language, and each full-text arm's text: the original plus a translation
    into the arm's language (None when there is no translation)."""
    lang, translated = translate.translations(qc.query, qc.principal.tenant_id)
    qc.explain["language"] = {"detected": lang, "translations": translated}
    if not translated:
        return lang, None
    return lang, {
        "english": " ".join([lexical, lexical_query(translated.get("en", ""))]).strip(),
        "german": " ".join([lexical, lexical_query(translated.get("de", ""))]).strip(),
    }


def run_query(principal: Principal, params: QueryParams) -> QueryResult:
    started = time.perf_counter()
    timing: dict[str, float] = {}
    sp = params.search
    qc = QueryContext(
        principal=principal, query=sp.query, now=params.now or timezone.now(), limit=sp.limit
    )
    mark = time.perf_counter()
    qc.temporal = temporal_query.intent_for(sp.query, qc.now)
    decomposing = knobs.value("CTX_QUERY_DECOMPOSE", principal.tenant_id)
    parts = decompose.parts(sp.query) if decomposing else []
    # One batch: the question and its parts (a part holds no secret its question lacks).
    qc.query_vector, *part_vectors = _vectors([sp.query, *parts], qc.explain, principal.tenant_id)
    qc.parts = dict(zip(parts, part_vectors, strict=True))
    timing["embed"] = _ms(mark)
    mark = time.perf_counter()
    hits = _retrieve(qc, params)
    timing["search"] = _ms(mark)
    mark = time.perf_counter()
    configured = knobs.value("CTX_QUERY_STAGES", principal.tenant_id)
    order = params.stages if params.stages is not None else configured
    pool = run_stages(qc, hits, tuple(order))
    gap, lexical = confidence.pool_evidence([h.arms for h in pool])
    # The floors come before confidence and synthesis: a dropped hit is not a source.
    cosine_floor = knobs.value("CTX_QUERY_COSINE_FLOOR", principal.tenant_id)
    hits = floored(evidenced(pool, cosine_floor)[: sp.limit], sp.min_score)
    timing["stages"] = _ms(mark)
    cover = confidence.coverage(
        sp.query, [f"{h.block.title} {h.block.content}" for h in hits[:5] if h.block is not None]
    )
    evidence = confidence.Evidence(len(hits), cover, gap, lexical)
    verdict = confidence.judge(evidence)
    answer, mode, mark = None, "retrieval", time.perf_counter()
    if params.synthesize:
        answer, mode = _synthesize(principal, sp.query, hits, verdict, qc.explain)
    timing["synthesis"] = _ms(mark)
    timing["total"] = _ms(started)
    result = QueryResult(
        query=sp.query,
        mode=mode,
        answer=answer,
        confidence=verdict,
        hits=hits,
        now=qc.now,
        timing_ms=timing,
        scope_names={sid: name for name, sid in principal.scope_names.items()},
    )
    if params.explain:
        result.explain = {
            **qc.explain,
            "temporal": temporal_query.describe(qc.temporal),
            # Shown, not judged by (the verdict reads the gap): may load vectors, so only here.
            "best_cosine": _best_cosine(hits[:3], qc.query_vector),
            "term_coverage": round(cover, 3),
            "semantic_gap": gap,
            "lexical_candidates": lexical,
            "not_embedded_sensitivity": _not_embedded(hits),
            "hits": {
                h.id: {"fused": round(h.fused, 6), "arms": h.arms, "score": round(h.score, 6)}
                for h in hits
            },
        }
    return result


def _synthesize(
    principal: Principal, query: str, hits: list[Hit], verdict: str, explain: dict[str, Any]
) -> tuple[str | None, str]:
    """The answer written from the hits; a source above the caller's read ceiling reaches the
    LLM as its redaction marker, so the answer cannot repeat what the caller may not read."""
    llm = get_llm()
    if llm is None:
        return None, "retrieval"  # documented: no LLM configured is not an error
    if verdict == confidence.NONE:
        explain["synthesis"] = "skipped: no relevant blocks"
        return synthesis.IDK, "synthesis"
    sources = [
        synthesis.Source(
            n=i + 1,
            title=h.block.title,
            text=masking.text(principal, h.block.sensitivity, h.block.content),
            date=_date(h),
            sensitivity=h.block.sensitivity,
        )
        for i, h in enumerate(hits)
        if h.block
    ]
    try:
        answer, status = synthesis.synthesize(llm, query, sources)
    except SensitivityBlocked as exc:  # fail closed, and say what to do about it
        exc.message = (
            f"Synthesis needs the LLM to read the query and every source, and {exc.message} "
            "Ask without synthesize, narrow the query (scopes, category, tags), or raise "
            "CTX_LLM_TRUST for an LLM you trust with this level."
        )
        raise
    explain["synthesis"] = status
    return answer, "synthesis"


def _not_embedded(hits: list[Hit]) -> list[str]:
    """Hits without a vector because they are above the embedder's trust (lexical-only)."""
    return [
        h.id
        for h in hits
        if h.block is not None
        and not _has_vector(h.block)
        and not allows("embed", h.block.sensitivity)
    ]


def _has_vector(block: Block) -> bool:
    """attach_blocks(vectors=False) annotates it; blocks a stage loaded itself have the field."""
    flag = getattr(block, "has_vector", None)
    return bool(flag) if flag is not None else block.embedding is not None


def _date(hit: Hit) -> str:
    block = hit.block
    assert block is not None
    return (block.source_time or block.created_at).date().isoformat()


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
