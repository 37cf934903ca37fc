"""GET /api/jobs/{id}: an import job's status and result, to its tenant only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cast
from tests.ingest.support import batch, imported, session, turns

pytestmark = pytest.mark.django_db


def test_it_shows_the_job_with_counts_per_session(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    job = imported(
        cast.owner, batch(session(messages=turns(3))), django_capture_on_commit_callbacks
    )
    assert job["result"]["totals"] == {
        "new": 3,
        "revised": 0,
        "unchanged": 0,
        "removed": 0,
        "skipped": 0,
    }
    assert job["finished_at"] and job["error"] == "" and job["sessions"] == 1
    status, same = cast.reader.get(f"/api/jobs/{job['id']}")  # reads acme:main
    assert status == 200 and same["job"]["id"] == job["id"]


def test_it_answers_a_foreign_or_malformed_job_id_with_the_same_404(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    job = imported(
        cast.owner, batch(session(messages=turns(1))), django_capture_on_commit_callbacks
    )
    foreign = cast.outsider.get(f"/api/jobs/{job['id']}")
    missing = cast.owner.get("/api/jobs/00000000-0000-4000-8000-000000000000")
    malformed = cast.owner.get("/api/jobs/nope")
    assert foreign[0] == missing[0] == malformed[0] == 404
    assert foreign[1] == missing[1] == malformed[1]
    assert foreign[1]["error"]["message"] == "Job not found."


def test_it_fails_the_job_of_a_key_revoked_before_it_ran(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    from ctx.models import ApiKey
    from ingest import services

    with django_capture_on_commit_callbacks(execute=False):
        _, data = cast.owner.post("/api/sessions/import", batch(session(messages=turns(2))))
    ApiKey.objects.filter(name="owner").update(active=False)
    assert services.job_run(data["job"]["id"]) == "failed"
    from ingest.models import ImportJob, Session

    job = ImportJob.objects.get(pk=data["job"]["id"])
    assert job.error == "The key that uploaded this batch is no longer active."
    assert job.payload is None and not Session.objects.exists()
    assert services.job_run(data["job"]["id"]) == "skipped"  # claimed once only


def test_it_answers_the_import_and_every_poll_without_reading_the_batch_again(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with django_capture_on_commit_callbacks(execute=False), CaptureQueriesContext(connection) as q:
        _, data = cast.owner.post("/api/sessions/import", batch(session(messages=turns(2))))
        status, polled = cast.owner.get(f"/api/jobs/{data['job']['id']}")
    assert status == 200 and polled["job"]["status"] == "queued"
    reads = [x["sql"] for x in q.captured_queries if 'FROM "ingest_importjob"' in x["sql"]]
    assert len(reads) == 2  # the import's refresh and the poll
    assert not [sql for sql in reads if '"ingest_importjob"."payload"' in sql]
