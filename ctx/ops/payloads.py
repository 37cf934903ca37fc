"""Wire shapes of the operations' results, declared once: the HTTP API sends them inside its
success envelope and MCP returns them as structured content, so both interfaces answer the
same operation with the same JSON (tests/ops/test_parity.py). Interfaces add only their own
framing: the envelope and status (HTTP), the text rendering (MCP), a page (web UI).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NotRequired

from django.utils import timezone
from typing_extensions import TypedDict  # pydantic (MCP output schemas) needs it below 3.12

from ctx import masking
from ctx.models import Block
from ctx.principal import Principal
from retrieval.search import preview


class BlockSummary(TypedDict):
    id: str
    scope: str
    category: str
    title: str
    preview: str
    tags: list[str]
    type: str
    updated_at: str
    score: NotRequired[float]
    redacted: NotRequired[bool]  # true: the preview is `[redacted:<level>]` (ctx/masking.py)


class BlockFull(TypedDict):
    id: str
    scope: str
    category: str
    title: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    type: str
    lifecycle: str
    content_hash: str
    superseded_by: str | None
    valid_from: str | None
    valid_to: str | None
    source_time: str | None
    embedded: bool
    quality: float | None
    sensitivity: str
    created_at: str
    updated_at: str
    redacted: NotRequired[bool]  # true: content, metadata and hash are masked for this key
    hint: NotRequired[str]  # with redacted: how to read the block in clear


class Source(TypedDict):
    """One cited source of a query answer."""

    n: int
    id: str
    scope: str
    title: str
    category: str
    score: float
    age_days: float
    preview: str
    tags: list[str]
    type: str
    metadata: dict[str, Any]
    redacted: NotRequired[bool]


class QueryPayload(TypedDict):
    query: str
    mode: Literal["retrieval", "synthesis"]
    answer: str | None
    confidence: str
    sources: list[Source]
    timing_ms: dict[str, float]
    explain: NotRequired[dict[str, Any]]


class StorePayload(TypedDict):
    action: Literal["created", "updated", "noop"]
    id: str
    scope: str
    sensitivity: str  # the stored level: public | internal | personal | credentials
    sensitivity_reasons: list[str]  # detectors that raised it (names only, never the text)
    guard: NotRequired[dict[str, Any]]  # near-duplicate hint (dream's store hint)


class StoreBatchRow(TypedDict):
    id: str
    action: Literal["created", "updated", "noop"]
    sensitivity: str
    sensitivity_reasons: list[str]


class StoreBatchPayload(TypedDict):
    results: list[StoreBatchRow]


class SearchPayload(TypedDict):
    query: str
    count: int
    results: list[BlockSummary]


class ListPayload(TypedDict):
    count: int
    results: list[BlockSummary]


class PagePayload(TypedDict):
    count: int
    results: list[BlockSummary]
    next_cursor: str | None  # None on the last page


class BlockPayload(TypedDict):
    block: BlockFull


class UpdatePayload(TypedDict):
    action: Literal["updated"]
    block: BlockFull


class RestorePayload(TypedDict):
    action: Literal["restored"]
    block: BlockFull


class DeletePayload(TypedDict):
    action: Literal["archived"]
    id: str


class ChainLink(TypedDict):
    id: str
    scope: str
    title: str
    lifecycle: str
    archived: bool
    updated_at: str


class ChainPayload(TypedDict):
    newer: list[ChainLink]  # the blocks that replaced this one, in order
    older: list[ChainLink]  # the blocks this one replaced, nearest first


class CategoryCount(TypedDict):
    category: str
    count: int


class CategoriesPayload(TypedDict):
    categories: list[CategoryCount]


class StatsPayload(TypedDict):
    stats: dict[str, Any]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def age_days(block: Block, now: datetime | None = None) -> float:
    reference = block.source_time or block.created_at
    return round(((now or timezone.now()) - reference).total_seconds() / 86400, 2)


def summary(principal: Principal, block: Block, score: float | None = None) -> BlockSummary:
    """A block in a listing; its preview masked above the principal's read ceiling."""
    row: BlockSummary = {
        "id": str(block.pk),
        "scope": block.scope.name,
        "category": block.category,
        "title": block.title,
        "preview": preview_for(principal, block),
        "tags": list(block.tags),
        "type": block.type,
        "updated_at": block.updated_at.isoformat(),
    }
    if score is not None:
        row["score"] = round(score, 6)
    return flag_masked(principal, block, row)


def preview_for(principal: Principal, block: Block) -> str:
    return masking.text(principal, block.sensitivity, preview(block.content))


def flag_masked(principal: Principal, block: Block, row: Any) -> Any:
    """`row` with `redacted: true` when the principal reads the block masked."""
    if masking.masked(principal, block.sensitivity):
        row["redacted"] = True
    return row


def chain_link(block: Block) -> ChainLink:
    return {
        "id": str(block.pk),
        "scope": block.scope.name,
        "title": block.title,
        "lifecycle": block.lifecycle,
        "archived": block.archived,
        "updated_at": block.updated_at.isoformat(),
    }


def full(principal: Principal, block: Block) -> BlockFull:
    """The whole block; above the principal's read ceiling its content, metadata and content
    hash are masked, with `redacted` and a `hint` saying which key reads it."""
    level = block.sensitivity
    payload: BlockFull = {
        "id": str(block.pk),
        "scope": block.scope.name,
        "category": block.category,
        "title": block.title,
        "content": masking.text(principal, level, block.content),
        "tags": list(block.tags),
        "metadata": masking.metadata(principal, level, block.metadata),
        "type": block.type,
        "lifecycle": block.lifecycle,
        "content_hash": masking.text(principal, level, block.content_hash),
        "superseded_by": str(block.superseded_by_id) if block.superseded_by_id else None,
        "valid_from": _iso(block.valid_from),
        "valid_to": _iso(block.valid_to),
        "source_time": _iso(block.source_time),
        "embedded": block.embedding is not None,
        "quality": block.quality,
        "sensitivity": level,
        "created_at": block.created_at.isoformat(),
        "updated_at": block.updated_at.isoformat(),
    }
    if masking.masked(principal, level):
        payload["redacted"] = True
        payload["hint"] = masking.hint(principal, level)
    return payload
