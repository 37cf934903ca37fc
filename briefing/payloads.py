"""Wire shapes of the briefing operations (HTTP sends them in its envelope, MCP returns them
as structured content)."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict  # pydantic (MCP output schemas) needs it below 3.12


class ContextLine(TypedDict):
    section: str  # corrections | profile | projects | decisions | tasks | people | facts
    id: str  # the block the line cites (its first 8 characters are in the text)
    text: str
    tokens: int
    score: float


class ContextPayload(TypedDict):
    agent: str
    project: str | None
    max_tokens: int
    tokens: int  # of `text`, never more than max_tokens
    tokenizer: str
    text: str
    lines: list[ContextLine]
    candidates: int  # blocks considered


class ChangeItem(TypedDict):
    at: str
    kind: str  # new_fact | new_preference | new_decision | new_task | new_entity | superseded
    # | updated | new_sessions
    sentence: str
    id: NotRequired[str]
    scope: NotRequired[str]
    type: NotRequired[str]
    title: NotRequired[str]
    version: NotRequired[int]
    before: NotRequired[dict[str, Any]]
    after: NotRequired[dict[str, Any]]
    tool: NotRequired[str]
    count: NotRequired[int]


class ChangesPayload(TypedDict):
    since: str
    until: str
    count: int
    changes: list[ChangeItem]
    summary: dict[str, int] | None  # counts over the whole window, on the first page only
    next_cursor: str | None
