"""Celery tasks: thin shells over memory.services (conventions §9)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from ctx import broker
from memory import services

log = logging.getLogger("ctx.memory")

BATCH = 64  # sources per task message


@shared_task(
    name="memory.extract_sources", autoretry_for=(Exception,), retry_backoff=5, max_retries=3
)
def extract_sources(keys: list[str]) -> list[dict[str, object]]:
    # Idempotent per content hash: a redelivered or retried message finds the sources
    # unchanged and writes nothing.
    skipped = services.never_read(keys)
    return [
        {"source": key, "status": "skipped"} if key in skipped else services.extract_source(key)
        for key in keys
    ]


def enqueue(keys: list[str]) -> None:
    """After the source's write committed. Without a broker (a management command, a test
    server) the extraction runs right here: there is no worker to ask."""
    if not keys:
        return
    if not settings.CELERY_BROKER_URL:
        extract_sources(keys)
        return
    for start in range(0, len(keys), BATCH):
        broker.send(extract_sources.name, (keys[start : start + BATCH],))
