"""Finding blocks: lexical `search` and the full `query` pipeline (retrieval/query.py)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from ctx import masking
from ctx import validation as v
from ctx.errors import ValidationFailed
from ctx.ops import payloads as p
from ctx.ops.inputs import (
    CategoryExclude,
    CategoryFilter,
    Flag,
    Input,
    Limit,
    MinScore,
    QueryText,
    RoleExclude,
    ScopeList,
    TagFilter,
    TypeExclude,
    TypeFilter,
    When,
)
from ctx.principal import Principal
from retrieval import lexical
from retrieval.query import QueryParams, QueryResult, run_query
from retrieval.stages import registry


def _one_scope(value: Any) -> str | None:
    return None if value is None else v.string({"scope": value}, "scope", max_len=100)


class SearchInput(Input):
    query: QueryText
    limit: Limit = 10
    min_score: MinScore = None
    category: CategoryFilter = None
    tags: TagFilter = []
    types: TypeFilter = []
    types_exclude: TypeExclude = []
    block_roles_exclude: RoleExclude = []
    categories_exclude: CategoryExclude = []
    scopes: ScopeList = []
    scope: Annotated[
        str | None,
        Field(max_length=100, description="One scope to look in (with or instead of scopes)."),
        BeforeValidator(_one_scope),
    ] = None

    def params(self) -> lexical.SearchParams:
        return lexical.SearchParams(
            query=self.query,
            limit=self.limit,
            category=self.category or None,
            tags=list(self.tags),
            types=list(self.types),
            # The older name adds to the newer: more left out, never less (either alone or both).
            types_exclude=list(dict.fromkeys([*self.types_exclude, *self.block_roles_exclude])),
            categories_exclude=list(self.categories_exclude),
            scopes=[*self.scopes, *([self.scope] if self.scope else [])],
            min_score=self.min_score,
        )


def search(principal: Principal, data: SearchInput) -> p.SearchPayload:
    params = data.params()
    hits = lexical.search(principal, params)
    rows = [p.summary(principal, h.block, h.relevance) for h in hits if h.block is not None]
    return {"query": params.query, "count": len(rows), "results": rows}


def _stages(value: Any) -> tuple[str, ...] | None:
    """An evaluation control like `now`: run these stages instead of the configured ones."""
    if value is None:
        return None
    names = v.string_list({"stages": value}, "stages", max_items=10, max_len=40)
    unknown = [n for n in names if n not in registry()]
    if unknown:
        raise ValidationFailed(
            f"Unknown stages: {', '.join(unknown)}.", details={"field": "stages"}
        )
    return tuple(names)


def _fusion(value: Any) -> str | None:
    return v.choice({"fusion": value}, "fusion", ("score", "rrf"))


class QueryInput(SearchInput):
    synthesize: Annotated[
        Flag, Field(description="Also write an answer from the sources (needs an LLM).")
    ] = False
    explain: Annotated[Flag, Field(description="Say how every hit was found.")] = False
    now: When = None
    as_of: When = None
    since: Annotated[When, Field(description="Only blocks said or dated on or after it.")] = None
    until: Annotated[When, Field(description="Only blocks said or dated on or before it.")] = None
    stages: Annotated[tuple[str, ...] | None, BeforeValidator(_stages)] = None
    fusion: Annotated[Literal["score", "rrf"] | None, BeforeValidator(_fusion)] = None

    def query_params(self) -> QueryParams:
        return QueryParams(
            search=self.params(),
            synthesize=self.synthesize,
            explain=self.explain,
            now=self.now,
            as_of=self.as_of,
            period=self.period(),
            stages=self.stages,
            fusion=self.fusion,
        )

    def period(self) -> tuple[date, date] | None:
        """The days of `since`..`until` (either end open), or None when neither is given."""
        if self.since is None and self.until is None:
            return None
        start = self.since.date() if self.since else date.min
        end = self.until.date() if self.until else date.max
        if start > end:
            raise ValidationFailed("'since' is after 'until'.", details={"field": "since"})
        return start, end


def query(principal: Principal, data: QueryInput) -> p.QueryPayload:
    return query_payload(principal, run_query(principal, data.query_params()))


def query_payload(principal: Principal, result: QueryResult) -> p.QueryPayload:
    payload: p.QueryPayload = {
        "query": result.query,
        "mode": "synthesis" if result.mode == "synthesis" else "retrieval",
        "answer": result.answer,
        "confidence": result.confidence,
        "sources": [_source(principal, i + 1, h, result) for i, h in enumerate(result.hits)],
        "timing_ms": result.timing_ms,
    }
    if result.explain is not None:
        payload["explain"] = result.explain
    return payload


def _source(principal: Principal, n: int, hit: Any, result: QueryResult) -> p.Source:
    """One cited source; the filters keep every hit inside the caller's readable scopes, so
    its scope name is known without a join (the block's own scope row is the fallback).
    Masked above the principal's read ceiling like every block payload."""
    block = hit.block
    source: p.Source = {
        "n": n,
        "id": hit.id,
        "scope": result.scope_names.get(block.scope_id) or block.scope.name,
        "title": block.title,
        "category": block.category,
        "score": hit.relevance,
        "age_days": p.age_days(block, result.now),
        "preview": p.preview_for(principal, block),
        "tags": list(block.tags),
        "type": block.type,
        "metadata": masking.metadata(principal, block.sensitivity, block.metadata),
    }
    return p.flag_masked(principal, block, source)
