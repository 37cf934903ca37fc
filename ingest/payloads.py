"""Wire shapes of the conversation operations (HTTP envelope and MCP structured content)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic (MCP output schemas) needs it below 3.12

from ingest.models import ImportJob, Message, Session


class SessionSummary(TypedDict):
    id: int
    scope: str
    tool: str
    external_id: str
    title: str
    project: str | None
    branch: str | None
    commit: str | None
    started_at: str | None
    last_activity_at: str | None
    message_count: int
    preview: str  # the last user prompt, cut short
    parent_external_id: str | None
    is_sidechain: bool


class MessageRow(TypedDict):
    index: int
    role: str
    text: str
    timestamp: str | None
    tool_calls: list[str]
    flags: list[str]
    redacted: list[str]


class JobPayload(TypedDict):
    id: str
    status: Literal["queued", "running", "done", "failed"]
    scope: str
    sessions: int
    messages: int
    result: dict[str, Any]
    error: str
    created_at: str
    finished_at: str | None


class ImportPayload(TypedDict):
    job: JobPayload


class JobEnvelope(TypedDict):
    job: JobPayload


class SessionListPayload(TypedDict):
    count: int
    total: int
    offset: int
    sessions: list[SessionSummary]


class SessionDetailPayload(TypedDict):
    session: SessionSummary
    offset: int
    count: int
    messages: list[MessageRow]
    meta: dict[str, Any]


class DeletePayload(TypedDict):
    action: Literal["deleted"]
    id: int
    messages: int
    windows: int


class WindowHit(TypedDict):
    id: str
    score: float
    first_index: int
    last_index: int
    preview: str


class SessionHit(TypedDict):
    session: SessionSummary
    score: float  # its best window's
    title_match: float  # the share of the query's words its title holds (it reorders sessions)
    windows: list[WindowHit]


class SearchPayload(TypedDict):
    query: str
    count: int
    sessions: list[SessionHit]
    confidence: NotRequired[str]


class KnowledgePayload(TypedDict, total=False):
    action: Literal["created", "superseded", "rejected"]
    id: str
    kind: str
    title: str
    scope: str
    similarity: float | None
    supersedes: str | None
    files: list[str]
    tools: list[str]
    source_session: dict[str, Any] | None


class SnapshotPayload(TypedDict):
    session_id: int
    markdown: str  # at most max_bytes bytes of UTF-8
    bytes: int
    max_bytes: int
    events: int  # events kept for the session
    dropped: int  # events the per-session cap dropped
    lines: int  # lines of the snapshot
    omitted: int  # lines left out to fit, the lowest priorities first


class EventsPayload(TypedDict):
    session: SessionSummary
    stored: int
    duplicates: int  # equal to one of the session's last five events: skipped
    dropped: int  # dropped by the per-session cap (lowest priority, oldest first)
    blocks: int  # searchable event blocks written
    skipped: NotRequired[str]  # why nothing was recorded: "deleted"
    snapshot: NotRequired[SnapshotPayload]


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def summary(s: Session) -> SessionSummary:
    return {
        "id": s.pk,
        "scope": s.scope.name,
        "tool": s.tool,
        "external_id": s.external_id,
        "title": s.title,
        "project": s.project_root or None,
        "branch": s.git_branch or None,
        "commit": s.git_commit or None,
        "started_at": iso(s.started_at),
        "last_activity_at": iso(s.last_activity_at),
        "message_count": s.message_count,
        "preview": s.preview,
        "parent_external_id": s.parent_external_id or None,
        "is_sidechain": s.is_sidechain,
    }


def message(m: Message) -> MessageRow:
    return {
        "index": m.index,
        "role": m.role,
        "text": m.text,
        "timestamp": iso(m.timestamp),
        "tool_calls": list(m.tool_calls),
        "flags": list(m.flags),
        "redacted": list(m.redacted),
    }


def job(j: ImportJob, scope: str) -> JobPayload:
    return {
        "id": str(j.pk),
        "status": j.status,  # type: ignore[typeddict-item]
        "scope": scope,
        "sessions": j.sessions,
        "messages": j.messages,
        "result": j.result,
        "error": j.error,
        "created_at": j.created_at.isoformat(),
        "finished_at": iso(j.finished_at),
    }
