"""Indexed references as operations: index a document, list and delete sources, snippet
search. Input bounds live here, once (docs/index.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from ctx import knobs, masking
from ctx import validation as v
from ctx.errors import TooLarge, ValidationFailed
from ctx.ops.inputs import Input, IntParam, ScopeList, ScopeName, Text
from ctx.principal import Principal
from ctx.selectors import readable_scope_ids
from refindex import chunk as chunking
from refindex import payloads as p
from refindex import search as snippets
from refindex import selectors, services
from refindex.models import Source

MAX_QUERIES = 10
TITLES_SHOWN = 100


def _document(value: Any) -> str:
    """A non-empty string of at most CTX_INDEX_MAX_BYTES bytes (more: 413)."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed(
            "'content' must be a non-empty string.", details={"field": "content"}
        )
    limit = int(knobs.value("CTX_INDEX_MAX_BYTES"))
    size = len(value.encode("utf-8"))
    if size > limit:
        raise TooLarge(
            f"'content' is {size} bytes; the limit is {limit} bytes.",
            details={"field": "content", "limit": limit, "size": size},
        )
    return value


Document = Annotated[
    str,
    Field(
        min_length=1,
        max_length=int(knobs.value("CTX_INDEX_MAX_BYTES")),  # characters <= bytes: safe
        description="The document's text (≤ CTX_INDEX_MAX_BYTES, 10 MB).",
    ),
    BeforeValidator(_document),
]
Label = Annotated[
    str,
    Text(
        200, description="The document's name, e.g. a path or URL; indexing it again replaces it."
    ),
]
Kind = Annotated[
    Literal["auto", "markdown", "json", "text", "html"],
    Field(description="How to chunk it; auto guesses from the text."),
]


class IndexInput(Input):
    content: Document
    source: Label
    scope: ScopeName = None
    type: Kind = "auto"


def index(principal: Principal, data: IndexInput) -> p.IndexPayload:
    kind = chunking.detect(data.content) if data.type == "auto" else data.type
    done = services.source_index(
        principal=principal, scope=data.scope, label=data.source, kind=kind, content=data.content
    )
    return {
        "action": done.action,  # type: ignore[typeddict-item]
        "source": p.source_row(done.source),
        "titles": done.titles[:TITLES_SHOWN],
        "written": done.written,
        "removed": done.removed,
    }


class SourcesInput(Input):
    scopes: ScopeList = []


def sources_list(principal: Principal, data: SourcesInput) -> p.SourceListPayload:
    rows = [p.source_row(s) for s in selectors.sources(principal, _scopes(principal, data.scopes))]
    return {"count": len(rows), "sources": rows}


def _scopes(principal: Principal, names: list[str] | tuple[str, ...]) -> list[int]:
    return readable_scope_ids(principal, list(names))


class SourceInput(Input):
    label: Label
    scope: Annotated[
        str | None,
        Text(100, required=False, description="The source's scope, when its label is in several."),
    ] = None


def source_delete(principal: Principal, data: SourceInput) -> p.SourceDeletePayload:
    done = services.source_delete(principal=principal, label=data.label, scope=data.scope)
    return {"action": "deleted", **done}  # type: ignore[typeddict-item]


def _queries(value: Any) -> list[str]:
    found = v.string_list({"queries": value}, "queries", max_items=MAX_QUERIES, max_len=v.MAX_QUERY)
    if not found:
        raise ValidationFailed(
            "'queries' must hold at least one query.", details={"field": "queries"}
        )
    return found


class SearchInput(Input):
    queries: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=MAX_QUERIES,
            description="Several questions or keywords at once.",
        ),
        BeforeValidator(_queries),
    ]
    limit: Annotated[
        int | None, IntParam(1, 20, description="Most snippets per query (default 5).")
    ] = None
    source: Annotated[
        str | None, Text(200, required=False, description="Only this source (its label).")
    ] = None
    scope: Annotated[
        str | None,
        Text(100, required=False, description="Only this scope; default: every readable one."),
    ] = None


def _searched(principal: Principal, data: SearchInput) -> list[tuple[int, int, str]]:
    """(id, scope id, label) of each source searched: only what the search needs (loading
    every source whole, with its terms, took longer than the search at 579 sources)."""
    if data.source is not None:
        one = selectors.get_source_for(principal, data.source, data.scope)
        return [(one.pk, one.scope_id, one.label)]
    scope_ids = _scopes(principal, [data.scope] if data.scope else [])
    return list(selectors.sources(principal, scope_ids).values_list("pk", "scope_id", "label"))


def search(principal: Principal, data: SearchInput) -> p.SnippetSearchPayload:
    sources = _searched(principal, data)
    corpus = snippets.Corpus(
        sources=[pk for pk, _, _ in sources],
        scopes=sorted({scope for _, scope, _ in sources}),
        categories=[services.category(label) for _, _, label in sources],
    )
    budget = int(knobs.value("CTX_INDEX_ANSWER_CHARS", principal.tenant_id))
    results: list[p.QueryResult] = []
    truncated = False
    for query in data.queries:
        found = snippets.search_one(query, corpus, data.limit or 5)
        hits: list[p.SnippetHit] = []
        for hit in found.hits:
            if len(hit.snippet) > budget:
                truncated = True
                break
            budget -= len(hit.snippet)
            hits.append(_hit(principal, hit))
        results.append(
            {
                "query": query,
                "rung": found.rung,
                "corrections": found.corrections,
                "count": len(hits),
                "hits": hits,
            }
        )
    return {"results": results, "terms": _terms(sources, results), "truncated": truncated}


def _hit(principal: Principal, hit: snippets.Hit) -> p.SnippetHit:
    """A hit as sent; above the key's read ceiling the snippet is the marker (ctx/masking.py)."""
    return {
        "source": hit.source,
        "scope": hit.scope,
        "title": hit.title,
        "block_id": hit.block_id,
        "rung": hit.rung,
        "score": hit.score,
        "snippet": masking.text(principal, hit.level, hit.snippet),
    }


def _terms(
    sources: list[tuple[int, int, str]], results: list[p.QueryResult]
) -> dict[str, list[str]]:
    """The distinctive terms of the sources hit (of the searched ones, at most 5, when
    nothing was found), to suggest the next queries."""
    hit = {h["source"] for r in results for h in r["hits"]}
    shown = [pk for pk, _, label in sources if label in hit] or [pk for pk, _, _ in sources[:5]]
    rows = Source.objects.filter(pk__in=shown).values_list("pk", "label", "terms")
    found = {pk: (label, list(terms)) for pk, label, terms in rows}
    return dict(found[pk] for pk in shown if pk in found)
