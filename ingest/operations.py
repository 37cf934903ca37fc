"""Conversations as operations: import (a job), jobs, sessions (list, detail, delete, search),
the knowledge writes (decision, error solution, insight), the hook event log and its resume
snapshot. Input bounds live here, once."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from ctx import knobs, selectors
from ctx.errors import TooLarge, ValidationFailed
from ctx.ops.inputs import (
    BoolParam,
    Input,
    IntParam,
    OneOf,
    QueryText,
    ScopeList,
    ScopeName,
    Since,
    Tags,
    Text,
    When,
)
from ctx.principal import Principal
from ctx.services import writable_scope
from ingest import eventlog, events, knowledge, services, snapshot
from ingest import payloads as p
from ingest import selectors as ingest_selectors
from ingest.batch import ImportInput, ToolName, as_batch
from ingest.models import Session
from ingest.search import search_sessions

__all__ = ["ImportInput"]

ToolFilter = Annotated[
    str | None, Text(32, required=False, description="Only sessions of this tool (claude-code…).")
]
ProjectFilter = Annotated[
    str | None,
    Text(1000, required=False, description="Only sessions of this project (path or folder name)."),
]


# --- import and jobs -----------------------------------------------------------------------------


def import_sessions(principal: Principal, data: ImportInput) -> p.ImportPayload:
    scope_id = writable_scope(principal, data.scope)
    job = services.job_create(principal=principal, scope_id=scope_id, batch=as_batch(data))
    # Without a broker the import already ran (ingest.tasks); the payload stays unread (a
    # batch's megabytes of JSON, decoded again for nothing).
    job.refresh_from_db(fields=JOB_FIELDS)
    return {"job": p.job(job, _scope_name(principal, scope_id))}


JOB_FIELDS = ["status", "result", "error", "finished_at"]  # what an import may have changed


def _scope_name(principal: Principal, scope_id: int) -> str:
    return next((n for n, sid in principal.scope_names.items() if sid == scope_id), "")


class JobInput(Input):
    id: Annotated[str, Text(64, description="A job id from an import.")]


def job_get(principal: Principal, data: JobInput) -> p.JobEnvelope:
    job = ingest_selectors.get_job_for(principal, data.id)
    return {"job": p.job(job, _scope_name(principal, job.scope_id))}


# --- sessions ------------------------------------------------------------------------------------


class SessionsInput(Input):
    tool: ToolFilter = None
    project: ProjectFilter = None
    branch: Annotated[str | None, Text(200, required=False, description="Only this branch.")] = None
    since: Annotated[
        Since,
        Field(description="Only sessions active since: ISO time, '2 hours ago', 'yesterday'."),
    ] = None
    scopes: ScopeList = []
    limit: Annotated[int | None, IntParam(1, 100, description="Most sessions (default 10).")] = None
    offset: Annotated[int | None, IntParam(0, 100_000, description="Sessions to skip.")] = None


def sessions_list(principal: Principal, data: SessionsInput) -> p.SessionListPayload:
    found = ingest_selectors.sessions(
        principal,
        ingest_selectors.SessionFilter(
            scope_ids=selectors.readable_scope_ids(principal, list(data.scopes)),
            tool=data.tool,
            project=data.project,
            branch=data.branch,
            since=data.since,
        ),
    )
    offset, limit = data.offset or 0, data.limit or 10
    rows = [p.summary(s) for s in found[offset : offset + limit]]
    total = found.count() if len(rows) == limit or offset else offset + len(rows)
    return {"count": len(rows), "total": total, "offset": offset, "sessions": rows}


# Any: a foreign, missing or malformed id must reach the selector and answer its one 404.
SessionId = Annotated[
    Any,
    WithJsonSchema({"type": "integer", "minimum": 1}),
    Field(description="A session id from recent_sessions or search_sessions."),
]


class SessionInput(Input):
    id: SessionId


class DetailInput(SessionInput):
    offset: Annotated[int | None, IntParam(0, 10_000_000, description="Messages to skip.")] = None
    limit: Annotated[int | None, IntParam(1, 500, description="Most messages (default 50).")] = None
    latest: Annotated[
        bool, BoolParam("The last `limit` messages instead (where work stopped).")
    ] = False


def session_get(principal: Principal, data: DetailInput) -> p.SessionDetailPayload:
    session = ingest_selectors.get_session_for(principal, data.id)
    limit = data.limit or 50
    offset = data.offset or 0
    if data.latest:
        offset = max(0, session.message_count - limit)
    rows = ingest_selectors.messages(session, offset=offset, limit=limit)
    return {
        "session": p.summary(session),
        "offset": offset,
        "count": len(rows),
        "messages": [p.message(m) for m in rows],
        "meta": session.meta,
    }


def session_delete(principal: Principal, data: SessionInput) -> p.DeletePayload:
    done = services.session_delete(principal=principal, session_id=data.id)
    return {"action": "deleted", **done}  # type: ignore[typeddict-item]


class SearchInput(Input):
    query: QueryText
    limit: Annotated[int | None, IntParam(1, 20, description="Most sessions (default 5).")] = None
    tool: ToolFilter = None
    project: ProjectFilter = None
    scopes: ScopeList = []
    now: When = None


def sessions_search(principal: Principal, data: SearchInput) -> p.SearchPayload:
    return search_sessions(
        principal,
        query=data.query,
        limit=data.limit or 5,
        per_session=int(knobs.value("CTX_SESSION_SEARCH_PER_SESSION", principal.tenant_id)),
        tool=data.tool,
        project=data.project,
        scopes=list(data.scopes),
        now=data.now,
    )


# --- knowledge -----------------------------------------------------------------------------------

SessionRef = Annotated[
    Any,
    WithJsonSchema({"type": "integer", "minimum": 1}),
    Field(description="The id of the session this came from (from recent_sessions)."),
]


class _KnowledgeInput(Input):
    context: Annotated[
        str | None, Text(20_000, required=False, description="Background: where, why now.")
    ] = None
    session: SessionRef = None
    scope: ScopeName = None
    tags: Tags = []


class DecisionInput(_KnowledgeInput):
    title: Annotated[str, Text(200, description="The decision in a few words.")]
    rationale: Annotated[str, Text(20_000, description="Why it was decided.")]
    alternatives: Annotated[
        list[Annotated[str, Field(max_length=500)]],
        Field(max_length=20, description="Options considered and not taken."),
        BeforeValidator(lambda v: _strings(v, "alternatives", 20, 500)),
    ] = []


class ErrorSolutionInput(_KnowledgeInput):
    error: Annotated[str, Text(20_000, description="The error (message, symptom).")]
    solution: Annotated[str, Text(20_000, description="What fixed it.")]


class InsightInput(_KnowledgeInput):
    insight: Annotated[str, Text(20_000, description="What was learned.")]
    title: Annotated[str | None, Text(200, required=False, description="A short title.")] = None


def _strings(value: Any, name: str, items: int, length: int) -> list[str]:
    from ctx import validation as v

    return v.string_list({name: value}, name, max_items=items, max_len=length)


def _join(*parts: tuple[str, str | None]) -> str:
    return "\n\n".join(f"{label}: {text}" for label, text in parts if text)


def _save(
    principal: Principal, kind: str, data: _KnowledgeInput, title: str, content: str, **fields: Any
) -> p.KnowledgePayload:
    entry = knowledge.Entry(
        kind=knowledge.KINDS[kind],
        title=title,
        content=content,
        scope=data.scope,
        tags=list(data.tags),
        session=data.session,
        fields={k: v for k, v in fields.items() if v},
    )
    return knowledge.save(principal, entry)  # type: ignore[return-value]


def save_decision(principal: Principal, data: DecisionInput) -> p.KnowledgePayload:
    alternatives = "\n".join(f"- {a}" for a in data.alternatives) or None
    content = _join(
        ("Decision", data.title),
        ("Rationale", data.rationale),
        ("Context", data.context),
        ("Alternatives considered", alternatives and f"\n{alternatives}"),
    )
    return _save(
        principal, "decision", data, data.title, content, alternatives=list(data.alternatives)
    )


def save_error_solution(principal: Principal, data: ErrorSolutionInput) -> p.KnowledgePayload:
    title = " ".join(data.error.split())[:200]
    content = _join(("Error", data.error), ("Solution", data.solution), ("Context", data.context))
    return _save(principal, "error-solution", data, title, content)


def save_insight(principal: Principal, data: InsightInput) -> p.KnowledgePayload:
    title = data.title or _first_sentence(data.insight)
    content = _join(("Insight", data.insight), ("Context", data.context))
    return _save(principal, "insight", data, title, content)


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    for mark in (". ", "! ", "? "):
        if mark in flat[:200]:
            return flat[: flat.index(mark) + 1]
    return flat[:120]


# --- the hook event log and the resume snapshot --------------------------------------------------

MAX_EVENTS = 100  # per request
MAX_EVENT_CHARS = 2_000
MAX_EVENT_DATA_BYTES = 4_096
SNAPSHOT_BYTES = 2_048


def _event_count(value: Any) -> Any:
    """Count before parsing: a batch over the bound is refused whole (413), unread."""
    if not isinstance(value, list) or not value:
        raise ValidationFailed("'events' must be a non-empty list.", details={"field": "events"})
    if len(value) > MAX_EVENTS:
        raise TooLarge(f"'events' has more than {MAX_EVENTS} items.")
    return value


def _event_text(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_EVENT_CHARS:
        raise TooLarge(f"An event's text is longer than {MAX_EVENT_CHARS} characters.")
    return value


def _event_data(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationFailed("'data' must be an object.", details={"field": "data"})
    if len(json.dumps(value, default=str).encode()) > MAX_EVENT_DATA_BYTES:
        raise TooLarge(f"An event's data is larger than {MAX_EVENT_DATA_BYTES} bytes.")
    return value


class EventIn(Input):
    kind: Annotated[str, OneOf(events.KINDS, description="What happened.")]
    text: Annotated[
        str,
        Text(MAX_EVENT_CHARS, description="A short text: the prompt, the path, the command."),
        BeforeValidator(_event_text),  # runs first (pydantic: the last one does): 413, not 400
    ]
    data: Annotated[
        dict[str, Any],
        BeforeValidator(_event_data),
        Field(description=f"Small JSON (≤ {MAX_EVENT_DATA_BYTES} bytes): a path, a task list."),
    ] = {}
    at: Annotated[When, Field(description="When it happened (default: now).")] = None


MaxBytes = Annotated[
    int | None,
    IntParam(256, 16_384, description=f"Most bytes of the snapshot (default {SNAPSHOT_BYTES})."),
]


class EventsInput(Input):
    tool: ToolName
    external_id: Annotated[str, Text(200, description="The tool's own session id.")]
    project_root: Annotated[
        str | None, Text(1000, required=False, description="The session's working directory.")
    ] = None
    scope: ScopeName = None
    events: Annotated[
        list[EventIn],
        BeforeValidator(_event_count),
        Field(max_length=MAX_EVENTS, description="The events, oldest first."),
    ]
    snapshot: Annotated[
        bool, BoolParam("Also build the resume snapshot (and make the events searchable now).")
    ] = False
    max_bytes: MaxBytes = None


def events_record(principal: Principal, data: EventsInput) -> p.EventsPayload:
    scope_id = writable_scope(principal, data.scope)
    batch = [eventlog.NewEvent(e.kind, e.text, dict(e.data), e.at) for e in data.events]
    done = eventlog.events_record(
        principal=principal,
        scope_id=scope_id,
        scope=_scope_name(principal, scope_id),
        session_fields={
            "tool": data.tool,
            "external_id": data.external_id,
            "project_root": data.project_root or "",
        },
        batch=batch,
        flush=data.snapshot,
    )
    payload: p.EventsPayload = {
        "session": p.summary(done.session),
        "stored": done.stored,
        "duplicates": done.duplicates,
        "dropped": done.dropped,
        "blocks": done.blocks,
    }
    if done.skipped:
        payload["skipped"] = done.skipped
    elif data.snapshot:
        payload["snapshot"] = _snapshot(done.session, data.max_bytes or SNAPSHOT_BYTES)
    return payload


class SnapshotInput(SessionInput):
    max_bytes: MaxBytes = None


def session_snapshot(principal: Principal, data: SnapshotInput) -> p.SnapshotPayload:
    session = ingest_selectors.get_session_for(principal, data.id)
    return _snapshot(session, data.max_bytes or SNAPSHOT_BYTES)


def _snapshot(session: Session, max_bytes: int) -> p.SnapshotPayload:
    lines = ingest_selectors.session_events(session)
    head = snapshot.Head(
        tool=session.tool,
        external_id=session.external_id,
        project=session.project_root.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1],
        events=len(lines),
        dropped=session.events_dropped,
    )
    built = snapshot.build(head, lines, max_bytes)
    return {
        "session_id": session.pk,
        "markdown": built.markdown,
        "bytes": len(built.markdown.encode("utf-8")),
        "max_bytes": max_bytes,
        "events": len(lines),
        "dropped": session.events_dropped,
        "lines": built.lines,
        "omitted": built.omitted,
    }
