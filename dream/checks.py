"""Cross-setting rules of dream as Django system checks with stable ids."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from ctx import knobs
from ctx.config import KNOBS
from retrieval.llm import config_problems


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


@register()
def check_dream_llm(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E033: Dream's own LLM settings, with what they inherit, must describe a usable
    LLM (a provider without a model would stop every cycle at its first call)."""
    from dream.engines import LLM, inherit  # the engines import the LLM stack

    values = {k.name: knobs.configured(k.name) for k in KNOBS}
    merged, set_here = inherit(values, *LLM)
    if not set_here:
        return []  # inherited whole: the main LLM's own check covers it
    return [
        Error(
            problem.replace("CTX_LLM_", "CTX_DREAM_LLM_ (or CTX_LLM_) "),
            hint="Set the missing CTX_DREAM_LLM_* setting, or leave Dream's LLM settings unset.",
            id="ctx.E033",
        )
        for problem in config_problems(merged)
    ]
