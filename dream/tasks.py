"""Celery tasks: thin shells over dream's services (conventions §9).

`dream.feed` runs on Celery beat (CTX_DREAM_FEED_SECONDS) and fans out `dream.run` tasks; each
`dream.run` claims and runs cycles until nothing is due or its budget is spent, so any number
of workers share the queue through their claims.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from ctx import knobs
from dream import digest, scheduler
from dream.cycle import run_cycles, worker_name

log = logging.getLogger("ctx.dream")


@shared_task(name="dream.feed")
def feed() -> dict[str, Any]:
    plan = scheduler.feed()
    for _ in range(plan["tasks"]):
        run.apply_async(retry=False)
    for scope_id in plan["digests"]:
        build_digest.apply_async(args=[scope_id], retry=False)
    return plan


@shared_task(name="dream.run", bind=True)
def run(self: Any) -> dict[str, Any]:
    hostname = getattr(self.request, "hostname", None) or "worker"
    return run_cycles(worker=f"{hostname}:{worker_name()}").as_dict()


@shared_task(name="dream.digest")
def build_digest(scope_id: int) -> str:
    """Rebuild when due; a task that wakes before the (pushed back) due time re-enqueues."""
    wait = digest.due_in(scope_id, now=timezone.now())
    if wait is None:
        return "not due"
    if wait > 0:
        build_digest.apply_async(args=[scope_id], countdown=wait, retry=False)
        return "later"
    digest.digest_build(scope_id=scope_id)
    return "built"


def _broker() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def enqueue_run() -> None:
    """After new embeddings commit: run cycles now rather than at the next feed."""
    if _broker():
        run.apply_async(retry=False)


def enqueue_digest(scope_id: int) -> None:
    if _broker():
        countdown = knobs.value("CTX_DIGEST_DEBOUNCE_SECONDS")
        build_digest.apply_async(args=[scope_id], countdown=countdown, retry=False)
