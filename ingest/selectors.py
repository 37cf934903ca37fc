"""Reads of conversations. `get_session_for` and `get_job_for` are the only ways to one
session or job by id: anything outside the caller's readable scopes, deleted, missing or
malformed is the same NotFound."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, QuerySet

from ctx.errors import NotFound
from ctx.principal import Principal
from ctx.selectors import int_pk, row_for
from ingest.events import Line
from ingest.models import ImportJob, Message, Session, SessionEvent

SESSION_NOT_FOUND = "Session not found."
JOB_NOT_FOUND = "Job not found."


def get_session_for(principal: Principal, raw_id: object, *, write: bool = False) -> Session:
    """With `write` the row is locked and a session the principal may only read is Forbidden."""
    pk = int_pk(raw_id)
    if pk is None:
        raise NotFound(SESSION_NOT_FOUND)
    qs = (
        Session.objects.filter(pk=pk, deleted_at__isnull=True)
        .readable_by(principal)
        .select_related("scope")
    )
    return row_for(principal, qs, write=write, missing=NotFound(SESSION_NOT_FOUND))


def get_job_for(principal: Principal, raw_id: object) -> ImportJob:
    try:
        pk = uuid.UUID(str(raw_id))
    except ValueError:
        raise NotFound(JOB_NOT_FOUND) from None
    # Without the payload: a queued batch is megabytes of JSON that nobody reads here, and a
    # client polls its jobs every quarter second (decoded on every poll, in PostgreSQL and here).
    job = ImportJob.objects.filter(pk=pk).readable_by(principal).defer("payload").first()
    if job is None:
        raise NotFound(JOB_NOT_FOUND)
    return job


@dataclass(frozen=True)
class SessionFilter:
    scope_ids: list[int]
    tool: str | None = None
    project: str | None = None  # a project root, or its last path component
    branch: str | None = None
    since: datetime | None = None


def sessions(principal: Principal, f: SessionFilter) -> QuerySet[Session]:
    """Live sessions in the given readable scopes, newest activity first."""
    qs = Session.objects.readable_by(principal, f.scope_ids).filter(deleted_at__isnull=True)
    if f.tool:
        qs = qs.filter(tool=f.tool)
    if f.project:
        qs = qs.filter(project_root__in=_project_roots(qs, f.project))
    if f.branch:
        qs = qs.filter(git_branch=f.branch)
    if f.since:
        qs = qs.filter(last_activity_at__gte=f.since)
    # NULLS LAST as in the index session_scope_recent (PostgreSQL's DESC puts NULLs first).
    newest = F("last_activity_at").desc(nulls_last=True)
    return qs.select_related("scope").order_by(newest, "-id")


def _project_roots(qs: QuerySet[Session], project: str) -> list[str]:
    """`shop-app` matches `/home/me/shop-app` (and the full path itself)."""
    name = project.rstrip("/\\")
    roots = set(
        qs.filter(project_root__iendswith=name).values_list("project_root", flat=True).distinct()
    )
    found = {r for r in roots if r == name or r.rstrip("/\\").rsplit("/", 1)[-1] == name}
    found |= {r for r in roots if r.rstrip("/\\").rsplit("\\", 1)[-1] == name}
    return sorted(found)


def messages(session: Session, *, offset: int, limit: int) -> list[Message]:
    return list(session.messages.order_by("index")[offset : offset + limit])


def sessions_by_id(principal: Principal, ids: list[int]) -> dict[int, Session]:
    rows = (
        Session.objects.filter(pk__in=ids, deleted_at__isnull=True)
        .readable_by(principal)
        .select_related("scope")
    )
    return {s.pk: s for s in rows}


def session_events(session: Session) -> list[Line]:
    """The session's kept hook events, oldest first."""
    rows = SessionEvent.objects.filter(session=session).order_by("seq")
    return [
        Line(seq, kind, text, at, data)
        for seq, kind, text, at, data in rows.values_list("seq", "kind", "text", "at", "data")
    ]
