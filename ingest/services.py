"""Writes of conversations: import jobs (create, run), the import of one batch, deletion.

An uploaded batch is scrubbed of credentials before it is written anywhere (ingest.scrub),
kept as a job, and imported by a worker in one transaction: a failing batch leaves nothing
behind, and its job says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ctx import hooks
from ctx.errors import FORBIDDEN_SCOPE_MESSAGE, CtxError, Forbidden
from ctx.models import ApiKey
from ctx.principal import Principal
from ctx.selectors import principal_from_key
from ingest import eventlog, importer, scrub, windowing
from ingest.models import ImportJob, Message, Session, SessionEvent
from ingest.selectors import get_session_for

log = logging.getLogger("ctx.ingest")


# --- jobs ----------------------------------------------------------------------------------------


@transaction.atomic
def job_create(*, principal: Principal, scope_id: int, batch: dict[str, Any]) -> ImportJob:
    """Scrub the batch and queue it; the worker is asked once the job row has committed."""
    clean = {**batch, "sessions": [scrub.session(s) for s in batch["sessions"]]}
    job = ImportJob.objects.create(
        scope_id=scope_id,
        key=principal.key,
        payload=clean,
        sessions=len(clean["sessions"]),
        messages=sum(len(s.get("messages") or []) for s in clean["sessions"]),
    )
    from ingest import tasks  # the task module imports this one

    transaction.on_commit(lambda: tasks.enqueue_import(str(job.pk)))
    return job


_CLAIM = """UPDATE ingest_importjob SET status = 'running', started_at = %s
WHERE id = %s AND status = 'queued' RETURNING id"""


def _claim(job_id: str) -> ImportJob | None:
    """Take a queued job with one conditional UPDATE: a second delivery finds it running."""
    with connection.cursor() as cur:
        cur.execute(_CLAIM, [timezone.now(), job_id])
        if cur.fetchone() is None:
            return None
    return ImportJob.objects.select_related("key", "key__tenant").get(pk=job_id)


def _principal(job: ImportJob) -> Principal:
    key: ApiKey | None = job.key
    if key is None or not key.active or key.tenant.status != "active":
        raise Forbidden("The key that uploaded this batch is no longer active.")
    return principal_from_key(key)


def _finish(job: ImportJob, *, status: str, result: dict[str, Any], error: str = "") -> None:
    job.status, job.result, job.error = status, result, error
    job.payload = None  # processed: the batch is not kept
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "result", "error", "payload", "finished_at"])


def job_run(job_id: str) -> str:
    """Import a queued job's batch in one transaction; returns the job's final status."""
    job = _claim(job_id)
    if job is None:
        return "skipped"
    try:
        principal = _principal(job)
        with transaction.atomic():
            batch = job.payload or {"sessions": []}
            result = import_batch(principal=principal, scope_id=job.scope_id, batch=batch)
    except CtxError as exc:
        _finish(job, status=ImportJob.Status.FAILED, result={}, error=exc.message)
        return job.status
    except Exception:
        log.exception("import job %s failed", job_id)
        _finish(job, status=ImportJob.Status.FAILED, result={}, error="Internal error.")
        return job.status
    _finish(job, status=ImportJob.Status.DONE, result=result)
    return job.status


STALE_QUEUED = timedelta(minutes=2)  # a queued job nobody took: its message was lost
STALE_RUNNING = timedelta(minutes=15)  # well past the task time limit: its worker stopped
KEEP_FINISHED = timedelta(days=7)


def jobs_sweep(*, requeue: Callable[[str], None]) -> dict[str, int]:
    """Queue again what was never taken, fail what a stopped worker left running (its
    transaction rolled back: nothing of it was written), forget finished jobs after a week."""
    now = timezone.now()
    lost = list(
        ImportJob.objects.filter(status="queued", created_at__lt=now - STALE_QUEUED).values_list(
            "pk", flat=True
        )[:100]
    )
    for job_id in lost:
        requeue(str(job_id))
    stopped = ImportJob.objects.filter(status="running", started_at__lt=now - STALE_RUNNING).update(
        status="failed",
        error="The worker stopped; upload the batch again.",
        payload=None,
        finished_at=now,
    )
    old, _ = ImportJob.objects.filter(
        status__in=["done", "failed"], finished_at__lt=now - KEEP_FINISHED
    ).delete()
    return {"requeued": len(lost), "failed": stopped, "deleted": old}


# --- one batch -----------------------------------------------------------------------------------


def _scope_name(principal: Principal, scope_id: int) -> str:
    for name, sid in principal.scope_names.items():
        if sid == scope_id and principal.can_write(sid):
            return name
    raise Forbidden(FORBIDDEN_SCOPE_MESSAGE)


def import_batch(*, principal: Principal, scope_id: int, batch: dict[str, Any]) -> dict[str, Any]:
    """Every session of the batch; the caller holds the transaction."""
    scope = _scope_name(principal, scope_id)
    restore = bool(batch.get("restore_deleted"))
    machine = str(batch.get("machine") or "")
    rows: list[dict[str, Any]] = []
    work: list[windowing.Pending] = []
    locked = _lock_sessions(scope_id, batch["sessions"])
    for raw in batch["sessions"]:
        first = locked.pop((raw["tool"], raw["external_id"]), None)
        row, pending = _import_session(scope_id, raw, first, machine=machine, restore=restore)
        rows.append(row)
        if pending is not None:
            work.append(pending)
    windowing.write(principal, scope, work)  # every session's windows together
    _after_commit([p.session.pk for p in work if p.items or p.stale])
    totals: dict[str, int] = {"new": 0, "revised": 0, "unchanged": 0, "removed": 0, "skipped": 0}
    for row in rows:
        for name, n in row["messages"].items():
            totals[name] = totals.get(name, 0) + n
    return {"sessions": rows, "totals": totals}


def _after_commit(session_ids: list[int]) -> None:
    """SESSIONS_WRITTEN once the import committed (extraction); fails open like a block
    write's after-commit hooks: the import stands."""
    if not session_ids:
        return

    def run() -> None:
        for hook in hooks.SESSIONS_WRITTEN:
            try:
                hook(session_ids)
            except Exception:
                log.warning("sessions-written hook %s failed", hook, exc_info=True)

    transaction.on_commit(run)


def _lock_sessions(
    scope_id: int, sessions: list[dict[str, Any]]
) -> dict[tuple[str, str], tuple[Session, bool]]:
    """Every session row of the batch locked (or created) before anything else, in one order
    for all batches. Jobs run in parallel (two ingest processes): a session cut across two
    batches is in both, and had each job locked its sessions as it went, along with the
    Source row of a file they share (an export), the two could wait on each other."""
    keys = sorted({(str(raw["tool"]), str(raw["external_id"])) for raw in sessions})
    return {key: importer.lock_session(scope_id, *key) for key in keys}


def _import_session(
    scope_id: int,
    raw: dict[str, Any],
    locked: tuple[Session, bool] | None,
    *,
    machine: str,
    restore: bool,
) -> tuple[dict[str, Any], windowing.Pending | None]:
    """One session's row and messages; its result row and the windows it needs. `locked` is
    the row `_lock_sessions` took, for the session's first part in the batch (a later part
    reads the row again: the first one changed it)."""
    session, created = locked or importer.lock_session(scope_id, raw["tool"], raw["external_id"])
    head = {"tool": session.tool, "external_id": session.external_id, "id": session.pk}
    if session.deleted_at is not None and not restore:
        skipped = {"skipped": len(raw.get("messages") or [])}
        return {**head, "status": "skipped", "reason": "deleted", "messages": skipped}, None
    restored = session.deleted_at is not None
    session.deleted_at = None
    source = importer.source_for(scope_id, session.tool, machine, raw.get("source"))
    importer.apply_fields(session, raw, source)
    merge = importer.merge_messages(session, raw, created=created or restored)
    importer.refresh_summary(session)
    session.save()
    status = "new" if created else ("restored" if restored else _status(merge))
    pending = windowing.pending(session, merge.changed_from)
    return {**head, "status": status, "messages": merge.counts.as_dict()}, pending


def _status(merge: importer.Merge) -> str:
    return "unchanged" if merge.changed_from is None else "updated"


# --- deletion ------------------------------------------------------------------------------------


@transaction.atomic
def session_delete(*, principal: Principal, session_id: object) -> dict[str, Any]:
    """Remove a session's messages, hook events and their blocks (with their embeddings) and
    keep a tombstone, so that a later import skips it unless asked to restore it. Same 404 for
    foreign ids."""
    session = get_session_for(principal, session_id, write=True)
    for hook in hooks.SESSIONS_REMOVED:  # what was derived from it goes first (facts)
        hook(principal, [session.pk])
    windows = windowing.purge(principal, session) + eventlog.purge(principal, session)
    messages, _ = Message.objects.filter(session=session).delete()
    SessionEvent.objects.filter(session=session).delete()
    Session.objects.filter(pk=session.pk).update(
        deleted_at=timezone.now(),
        title="",
        preview="",
        meta={},
        message_count=0,
        event_seq=0,
        events_dropped=0,
        updated_at=timezone.now(),
    )
    return {"id": session.pk, "messages": messages, "windows": windows}
