"""Celery tasks: thin shells over ingest.services (conventions §9)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from ctx import broker
from ingest import services

log = logging.getLogger("ctx.ingest")


@shared_task(name="ingest.run_import")
def run_import(job_id: str) -> str:
    # No automatic retry: the job was claimed (running) before any work, so a redelivery would
    # find nothing to do; a failure is recorded on the job for the client to see.
    return services.job_run(job_id)


@shared_task(name="ingest.sweep_jobs")
def sweep_jobs() -> dict[str, int]:
    return services.jobs_sweep(requeue=enqueue_import)


def enqueue_import(job_id: str) -> None:
    """After the job row committed. Without a broker (a management command, a test server)
    the batch is imported right here instead: there is no worker to ask."""
    if not settings.CELERY_BROKER_URL:
        services.job_run(job_id)
        return
    try:
        # Not `apply_async`: its connection has no socket timeout, and a paused Redis held the
        # import request (and its database connection) until Redis answered again.
        broker.publish(run_import.name, (job_id,))
    except Exception:  # the broker is down: import here rather than leave the job queued
        log.warning("broker unavailable; importing job %s in the web process", job_id)
        services.job_run(job_id)
