"""Cross-setting rules of dream as Django system checks with stable ids."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from ctx import knobs


@register()
def check_guard_thresholds(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E030: the review threshold must lie below the near-copy threshold."""
    review, archive = (
        knobs.configured("CTX_GUARD_REVIEW_AT"),
        knobs.configured("CTX_GUARD_ARCHIVE_AT"),
    )
    if review < archive:
        return []
    return [
        Error(
            f"CTX_GUARD_REVIEW_AT ({review}) must be below CTX_GUARD_ARCHIVE_AT ({archive}).",
            hint="Near-copies are a subset of near-duplicates; lower the review threshold.",
            id="ctx.E030",
        )
    ]


@register()
def check_dream_budget(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E031: a cycle task must end before Celery's soft time limit kills it."""
    budget = knobs.configured("CTX_DREAM_TASK_SECONDS")
    limit = getattr(settings, "CELERY_TASK_SOFT_TIME_LIMIT", None)
    if limit is None or budget < limit:
        return []
    return [
        Error(
            f"CTX_DREAM_TASK_SECONDS ({budget}) must be below the Celery soft time limit "
            f"({limit} s).",
            id="ctx.E031",
        )
    ]
