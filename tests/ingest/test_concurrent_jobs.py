"""Two import jobs at once (the ingest worker runs two processes): a session cut across both
batches, every session read from one export file. Each job locks its sessions in one order
before it touches the file's Source row, so neither waits on the other while holding what the
other needs; had a job taken the Source row first, PostgreSQL would have ended one of them as
a deadlock. The interleaving that deadlocked is forced here with an event."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from ingest import importer, services, tasks
from ingest.models import ImportJob, Message, Session
from tests.conftest import Cast
from tests.ingest.support import batch, imported, session, turns

pytestmark = pytest.mark.django_db(transaction=True)

EXPORT = {"path": "/exports/conversations.json", "cursor": {}}
WAIT = 3.0  # seconds a job waits for the other's step (PostgreSQL's deadlock_timeout is 1 s)


def _queue(cast: Cast, body: dict[str, Any]) -> str:
    """A job queued, not run (the enqueue is replaced by the test)."""
    status, data = cast.owner.post("/api/sessions/import", body)
    assert status == 202, data
    return str(data["job"]["id"])


def _in_thread(run: Callable[[], str], results: dict[str, str], name: str) -> threading.Thread:
    def target() -> None:
        try:
            results[name] = run()
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=target, name=name)
    thread.start()
    return thread


def test_it_runs_two_jobs_sharing_a_session_and_a_file_without_a_deadlock(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    first = [session(s, turns(4), source=EXPORT) for s in ("s-a", "s-m")]
    imported(cast.owner, batch(*first), django_capture_on_commit_callbacks)  # the file's row
    queued: list[str] = []
    monkeypatch.setattr(tasks, "enqueue_import", queued.append)
    one = _queue(cast, batch(*(session(s, turns(8), source=EXPORT) for s in ("s-a", "s-m"))))
    two = _queue(
        cast,
        batch(
            session("s-m", turns(8, start=8), source=EXPORT),
            session("s-z", turns(4), source=EXPORT),
        ),
    )
    holds_m, holds_file = threading.Event(), threading.Event()
    real_lock, real_source = importer.lock_session, importer.source_for

    def lock_session(scope_id: int, tool: str, external_id: str) -> tuple[Session, bool]:
        got = real_lock(scope_id, tool, external_id)
        if threading.current_thread().name == "two" and external_id == "s-m":
            holds_m.set()
        return got

    def source_for(*args: Any) -> Any:
        if threading.current_thread().name == "two":
            holds_file.wait(WAIT)  # s-m held: the first job takes the file's row meanwhile
            return real_source(*args)
        row = real_source(*args)
        holds_file.set()
        holds_m.wait(WAIT)  # the file's row held: the other job takes s-m now, if it can
        return row

    monkeypatch.setattr(importer, "lock_session", lock_session)
    monkeypatch.setattr(importer, "source_for", source_for)
    results: dict[str, str] = {}
    threads = [_in_thread(lambda: services.job_run(one), results, "one")]
    threads.append(_in_thread(lambda: services.job_run(two), results, "two"))
    for thread in threads:
        thread.join(30)
    jobs = {str(j.pk): j for j in ImportJob.objects.filter(pk__in=[one, two])}
    assert results == {"one": "done", "two": "done"}, [jobs[j].error for j in (one, two)]
    stored = Message.objects.filter(session__external_id="s-m")
    assert sorted(stored.values_list("index", flat=True)) == list(range(16))
    assert Session.objects.get(external_id="s-m").message_count == 16
