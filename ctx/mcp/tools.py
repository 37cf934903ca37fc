"""The MCP tools: thin shells over the same parsers, services and selectors as the HTTP API.

Each tool takes typed arguments (their JSON schema carries the bounds), hands them to the API's
own validation as the request body it would get, calls the service layer in Django's ORM
thread and returns the API's payload as structured content plus a text rendering.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.conf import settings
from mcp_types import CallToolResult
from pydantic import Field

from ctx import selectors, services
from ctx import validation as v
from ctx.api import presenters
from ctx.api.views import MANAGE_ACTIONS, STORE_HINTS, block_input, store_sensitivity
from ctx.mcp import render, schemas
from ctx.mcp.auth import current_principal
from ctx.mcp.results import Payload, run
from ctx.models import BlockType, Sensitivity
from ctx.principal import Principal
from retrieval import lexical
from retrieval.query import QueryParams, run_query

MAX_LIMIT = int(settings.CTX["CTX_SEARCH_MAX_LIMIT"])
MAX_CONTENT = int(settings.CTX["CTX_MAX_CONTENT_BYTES"])  # characters <= bytes: a safe bound

QueryText = Annotated[
    str,
    Field(min_length=1, max_length=v.MAX_QUERY, description="A question or keywords."),
]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most results to return.")]
Scopes = Annotated[
    list[Annotated[str, Field(max_length=100)]] | None,
    Field(
        max_length=v.MAX_SCOPES,
        description="Scope names to look in; default: every scope this key can read.",
    ),
]
Category = Annotated[
    str | None, Field(max_length=v.MAX_CATEGORY, description="Only blocks in this category.")
]
Tags = Annotated[
    list[Annotated[str, Field(max_length=v.MAX_TAG)]] | None,
    Field(max_length=v.MAX_TAGS, description="Only blocks carrying all of these tags."),
]
Types = Annotated[
    list[Annotated[str, Field(json_schema_extra={"enum": list(BlockType.values)})]] | None,
    Field(max_length=len(BlockType.values), description="Only blocks of these types."),
]
BlockId = Annotated[
    str,
    Field(min_length=1, max_length=64, description="A block id from query, search or recent."),
]
Title = Annotated[str, Field(min_length=1, max_length=v.MAX_TITLE, description="Block title.")]
CategoryName = Annotated[
    str,
    Field(min_length=1, max_length=v.MAX_CATEGORY, description="Category, e.g. infra, people."),
]
Content = Annotated[
    str,
    Field(min_length=1, max_length=MAX_CONTENT, description="The text to keep (Markdown ok)."),
]
BlockTypeName = Annotated[
    str,
    Field(json_schema_extra={"enum": list(BlockType.values)}, description="Kind of block."),
]
Metadata = Annotated[dict[str, Any] | None, Field(description="Free-form JSON (≤ 16 KB).")]
SensitivityName = Annotated[
    str | None,
    Field(
        json_schema_extra={"enum": list(Sensitivity.values)},
        description="public < internal < personal < credentials; default internal. "
        "A detector raises it when the text holds secrets or personal data.",
    ),
]
When = Annotated[
    str | None, Field(max_length=40, description="ISO-8601 date or datetime, e.g. 2026-03-01.")
]
ScopeName = Annotated[
    str | None,
    Field(max_length=100, description="Scope to write; default: the key's home scope."),
]


def _body(**fields: Any) -> dict[str, Any]:
    """The request body the HTTP API would get: unset arguments are absent, not null."""
    return {k: val for k, val in fields.items() if val is not None}


Work = Callable[[Principal, dict[str, Any]], Payload]


async def _call(work: Work, data: dict[str, Any], text: Callable[[Payload], str]) -> CallToolResult:
    principal = current_principal()  # read here: the ORM thread runs in another context
    return await run(lambda: work(principal, data), text)


def _query(principal: Principal, data: dict[str, Any]) -> Payload:
    return run_query(principal, QueryParams.from_request(data))


async def query(
    query: QueryText,
    limit: Limit = 10,
    scopes: Scopes = None,
    category: Category = None,
    tags: Tags = None,
    types: Types = None,
    synthesize: Annotated[
        bool, Field(description="Also write an answer from the sources (needs an LLM).")
    ] = False,
) -> Annotated[CallToolResult, schemas.QueryOutput]:
    data = _body(query=query, limit=limit, scopes=scopes, category=category, tags=tags, types=types)
    return await _call(_query, {**data, "synthesize": synthesize}, render.query)


def _search(principal: Principal, data: dict[str, Any]) -> Payload:
    params = lexical.SearchParams.from_request(data)
    rows = [
        {**presenters.summary(h.block), "score": round(h.score, 6)}
        for h in lexical.search(principal, params)
        if h.block is not None
    ]
    return {"query": params.query, "count": len(rows), "results": rows}


async def search(
    query: QueryText,
    limit: Limit = 10,
    scopes: Scopes = None,
    category: Category = None,
    tags: Tags = None,
    types: Types = None,
) -> Annotated[CallToolResult, schemas.SearchOutput]:
    data = _body(query=query, limit=limit, scopes=scopes, category=category, tags=tags, types=types)
    return await _call(_search, data, render.search)


def _store(principal: Principal, data: dict[str, Any]) -> Payload:
    scope = v.string(data, "scope", max_len=100, required=False) or None
    result = services.block_upsert(principal=principal, scope=scope, data=block_input(data))
    block = result.block
    body: Payload = {
        "action": result.action,
        "id": str(block.pk),
        "scope": block.scope.name,
        **store_sensitivity(result),
    }
    for hint in STORE_HINTS:  # the same extras as /api/store (near-duplicate hints)
        body.update(hint(principal, block))
    return body


async def store(
    category: CategoryName,
    title: Title,
    content: Content,
    scope: ScopeName = None,
    tags: Annotated[
        list[Annotated[str, Field(max_length=v.MAX_TAG)]] | None,
        Field(max_length=v.MAX_TAGS, description="Lower-case labels for filtering."),
    ] = None,
    type: BlockTypeName = "knowledge",  # noqa: A002 - the wire name
    metadata: Metadata = None,
    valid_from: When = None,
    valid_to: When = None,
    source: Annotated[
        str | None, Field(max_length=200, description="Where this came from (a URL, a person).")
    ] = None,
    sensitivity: SensitivityName = None,
) -> Annotated[CallToolResult, schemas.StoreOutput]:
    data = _body(
        category=category,
        title=title,
        content=content,
        scope=scope,
        tags=tags,
        type=type,
        metadata=metadata,
        valid_from=valid_from,
        valid_to=valid_to,
        source=source,
        sensitivity=sensitivity,
    )
    return await _call(_store, data, render.store)


async def get(
    id: BlockId,  # noqa: A002 - the wire name
) -> Annotated[CallToolResult, schemas.BlockOutput]:
    return await _call(MANAGE_ACTIONS["get"], {"id": id}, render.block)


def _recent(principal: Principal, data: dict[str, Any]) -> Payload:
    limit = v.integer(data, "limit", default=10, low=1, high=MAX_LIMIT)
    scope_ids = selectors.readable_scope_ids(principal, v.scope_names(data))
    rows = [presenters.summary(b) for b in selectors.recent_blocks(principal, scope_ids, limit)]
    return {"count": len(rows), "results": rows}


async def recent(
    limit: Limit = 10, scopes: Scopes = None
) -> Annotated[CallToolResult, schemas.RecentOutput]:
    return await _call(_recent, _body(limit=limit, scopes=scopes), render.recent)


async def update(
    id: BlockId,  # noqa: A002 - the wire name
    content: Annotated[
        str | None, Field(min_length=1, max_length=MAX_CONTENT, description="New text.")
    ] = None,
    title: Annotated[
        str | None, Field(min_length=1, max_length=v.MAX_TITLE, description="New title.")
    ] = None,
    category: Annotated[
        str | None, Field(min_length=1, max_length=v.MAX_CATEGORY, description="New category.")
    ] = None,
    tags: Annotated[
        list[Annotated[str, Field(max_length=v.MAX_TAG)]] | None,
        Field(max_length=v.MAX_TAGS, description="Replaces all tags."),
    ] = None,
    type: Annotated[  # noqa: A002 - the wire name
        str | None,
        Field(json_schema_extra={"enum": list(BlockType.values)}, description="New type."),
    ] = None,
    metadata: Annotated[
        dict[str, Any] | None, Field(description="Replaces the metadata (≤ 16 KB).")
    ] = None,
    valid_from: When = None,
    valid_to: When = None,
) -> Annotated[CallToolResult, schemas.UpdateOutput]:
    fields = _body(
        content=content,
        title=title,
        category=category,
        tags=tags,
        type=type,
        metadata=metadata,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    return await _call(MANAGE_ACTIONS["update"], {"id": id, "fields": fields}, render.update)


async def delete(
    id: BlockId,  # noqa: A002 - the wire name
) -> Annotated[CallToolResult, schemas.DeleteOutput]:
    return await _call(MANAGE_ACTIONS["delete"], {"id": id}, render.delete)


async def categories(scopes: Scopes = None) -> Annotated[CallToolResult, schemas.CategoriesOutput]:
    return await _call(MANAGE_ACTIONS["list-categories"], _body(scopes=scopes), render.categories)


async def stats(scopes: Scopes = None) -> Annotated[CallToolResult, schemas.StatsOutput]:
    return await _call(MANAGE_ACTIONS["stats"], _body(scopes=scopes), render.stats)
