"""ctx's own periodic work (the schedule is in settings.CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from ctx import selectors


@shared_task(name="ctx.measure_storage")
def measure_storage() -> int:
    """Every scope's storage, for `stats`: hourly, since it reads every row."""
    return selectors.measure_storage()
