"""Output schemas of the tools: the HTTP API's success payloads, or its error envelope.

Every result carries `success`; a failed call (isError) carries `error` with a stable code from
ctx.errors.ErrorCode instead of the other fields, so one schema per tool describes both.
typing_extensions.TypedDict because pydantic needs it below Python 3.12.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict


class ErrorBody(TypedDict):
    code: str
    message: str
    details: NotRequired[dict[str, Any]]


class Envelope(TypedDict):
    success: bool
    error: NotRequired[ErrorBody]


class Summary(TypedDict):
    id: str
    scope: str
    category: str
    title: str
    preview: str
    tags: list[str]
    type: str
    updated_at: str
    score: NotRequired[float]


class Source(TypedDict):
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
    results: list[Summary]


class BlockOutput(Envelope, total=False):
    block: dict[str, Any]  # ctx.api.presenters.full: every field of the block


class RecentOutput(Envelope, total=False):
    count: int
    results: list[Summary]


class UpdateOutput(Envelope, total=False):
    action: Literal["updated"]
    block: dict[str, Any]


class DeleteOutput(Envelope, total=False):
    action: Literal["archived"]
    id: str


class CategoryCount(TypedDict):
    category: str
    count: int


class CategoriesOutput(Envelope, total=False):
    categories: list[CategoryCount]


class StatsOutput(Envelope, total=False):
    stats: dict[str, Any]
