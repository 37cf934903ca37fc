"""Celery tasks: thin shells over profiles.processing (conventions §9).

`profiles.process` runs after a signal's transaction commits (`enqueue`); `profiles.sweep` runs
on beat (CTX_PROFILES_SWEEP_SECONDS) and catches up what a lost task left open.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from ctx import broker
from profiles import processing


@shared_task(name="profiles.process", autoretry_for=(Exception,), retry_backoff=2, max_retries=3)
def process(profile_id: int) -> dict[str, Any]:
    return processing.profile_process(profile_id)


@shared_task(name="profiles.sweep")
def sweep() -> list[int]:
    return processing.sweep()


def enqueue(profile_id: int) -> None:
    """After the signals' commit: a task when a broker is configured; without one (a
    management command, a test server) the signals are processed here and now, since no
    worker would ever take them."""
    if not settings.CELERY_BROKER_URL:
        processing.profile_process(profile_id)
        return
    # On the process's broker thread (ctx.broker): `apply_async` has no socket timeout, and a
    # paused Redis held the signal's request. The signals are committed: a message the broker
    # never gets is made up for by the sweep.
    broker.send(process.name, (profile_id,))
