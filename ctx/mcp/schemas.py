"""Output schemas of the tools: the operations' wire payloads (ctx/ops/payloads.py), or the
error envelope.

Every result carries `success`; a failed call (isError) carries `error` with a stable code from
ctx.errors.ErrorCode instead of the other fields, so one schema per tool describes both.
typing_extensions.TypedDict because pydantic needs it below Python 3.12.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from ctx.ops.payloads import BlockFull, BlockSummary, CategoryCount, Source
from ingest.payloads import MessageRow, SessionHit, SessionSummary


class ErrorBody(TypedDict):
    code: str
    message: str
    details: NotRequired[dict[str, Any]]


class Envelope(TypedDict):
    success: bool
    error: NotRequired[ErrorBody]


class QueryOutput(Envelope, total=False):
    query: str
    mode: Literal["retrieval", "synthesis"]
    answer: str | None
    confidence: str
    sources: list[Source]
    timing_ms: dict[str, float]


class StoreOutput(Envelope, total=False):
    action: Literal["created", "updated", "noop"]
    id: str
    scope: str
    guard: dict[str, Any]  # near-duplicate hint: {"checked": bool, "near_duplicate": {...}|null}
    sensitivity: str  # the stored level: public | internal | personal | credentials
    sensitivity_reasons: list[str]  # detectors that raised it (names only)


class SearchOutput(Envelope, total=False):
    query: str
    count: int
    results: list[BlockSummary]


class BlockOutput(Envelope, total=False):
    block: BlockFull


class RecentOutput(Envelope, total=False):
    count: int
    results: list[BlockSummary]


class UpdateOutput(Envelope, total=False):
    action: Literal["updated"]
    block: BlockFull


class DeleteOutput(Envelope, total=False):
    action: Literal["archived"]
    id: str


class CategoriesOutput(Envelope, total=False):
    categories: list[CategoryCount]


class StatsOutput(Envelope, total=False):
    stats: dict[str, Any]


class SessionsOutput(Envelope, total=False):
    count: int
    total: int
    offset: int
    sessions: list[SessionSummary]


class SessionDetailOutput(Envelope, total=False):
    session: SessionSummary
    offset: int
    count: int
    messages: list[MessageRow]
    meta: dict[str, Any]


class SessionSearchOutput(Envelope, total=False):
    query: str
    count: int
    sessions: list[SessionHit]
    confidence: str


class KnowledgeOutput(Envelope, total=False):
    action: Literal["created", "superseded", "rejected"]
    id: str  # the new block, or for `rejected` the existing one
    kind: str
    title: str
    scope: str
    similarity: float | None  # to the closest block of the kind, when one was compared
    supersedes: str | None
    files: list[str]
    tools: list[str]
    source_session: dict[str, Any] | None
