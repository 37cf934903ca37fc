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
from ctx.selectors import first_for, int_pk
from ingest.models import ImportJob, Message, Session

SESSION_NOT_FOUND = "Session not found."
JOB_NOT_FOUND = "Job not found."


def get_session_for(principal: Principal, raw_id: object, *, for_update: bool = False) -> Session:
    pk = int_pk(raw_id)
    if pk is None:
        raise NotFound(SESSION_NOT_FOUND)
    qs = Session.objects.filter(
        pk=pk, scope_id__in=principal.read_scope_ids, deleted_at__isnull=True
    ).select_related("scope")
    session = first_for(qs, for_update=for_update)
    if session is None:
        raise NotFound(SESSION_NOT_FOUND)
    return session


def get_job_for(principal: Principal, raw_id: object) -> ImportJob:
    try:
        pk = uuid.UUID(str(raw_id))
    except ValueError:
        raise NotFound(JOB_NOT_FOUND) from None
    job = ImportJob.objects.filter(pk=pk, scope_id__in=principal.read_scope_ids).first()
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
    readable = [s for s in f.scope_ids if principal.can_read(s)]  # a stray id must not leak
    qs = Session.objects.filter(scope_id__in=readable, deleted_at__isnull=True)
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
    rows = Session.objects.filter(
        pk__in=ids, scope_id__in=principal.read_scope_ids, deleted_at__isnull=True
    ).select_related("scope")
    return {s.pk: s for s in rows}
