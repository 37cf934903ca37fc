"""Wire shapes of the index operations (HTTP envelope and MCP structured content)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # pydantic (MCP output schemas) needs it below 3.12

from refindex.models import Source


class SourceRow(TypedDict):
    id: int
    label: str
    scope: str
    type: str
    bytes: int
    chunks: int
    terms: list[str]  # distinctive terms: words in >= 2 chunks and <= 40 % of them
    created_at: str
    updated_at: str


class IndexPayload(TypedDict):
    action: Literal["created", "replaced", "unchanged"]
    source: SourceRow
    titles: list[str]  # the chunks' titles in document order (the first 100)
    written: int  # blocks created or changed
    removed: int  # blocks of chunks that are gone


class SourceListPayload(TypedDict):
    count: int
    sources: list[SourceRow]


class SourceDeletePayload(TypedDict):
    action: Literal["deleted"]
    id: int
    label: str
    scope: str
    blocks: int


class SnippetHit(TypedDict):
    source: str
    scope: str
    title: str
    block_id: str
    rung: str  # stemmed_and | stemmed_or | trigram | typo
    score: float
    snippet: str  # ~1,500 characters around the hits, matched words marked «like this»


class QueryResult(TypedDict):
    query: str
    rung: str | None  # the ladder's rung that found the hits; None: nothing found
    corrections: dict[str, str]  # typo rung: query word -> vocabulary word used
    count: int
    hits: list[SnippetHit]


class SnippetSearchPayload(TypedDict):
    results: list[QueryResult]
    terms: dict[str, list[str]]  # per source label: its distinctive terms, to query next
    truncated: bool  # the answer reached CTX_INDEX_ANSWER_CHARS; later hits were left out


def source_row(s: Source) -> SourceRow:
    return {
        "id": s.pk,
        "label": s.label,
        "scope": s.scope.name,
        "type": s.kind,
        "bytes": s.bytes,
        "chunks": s.chunk_count,
        "terms": list(s.terms),
        "created_at": s.created_at.isoformat(),
        "updated_at": s.updated_at.isoformat(),
    }
