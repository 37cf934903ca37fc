"""Writing the LLMCall row for every LLM request. Best effort by design: the log is for
diagnosis and cost accounting, so its failure must never fail the call it describes."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from ctx import knobs

log = logging.getLogger("ctx.llm")

MAX_BODY_CHARS = 100_000  # a runaway prompt must not bloat the log table
MAX_ERROR_CHARS = 500  # LLMCall.error's length


def record_call(
    *,
    pipeline: str,
    provider: str,
    model: str,
    duration_ms: int,
    ok: bool,
    tokens_in: int = 0,
    tokens_out: int = 0,
    error: str = "",
    prompt: Sequence[Any] = (),
    response: str = "",
) -> None:
    """Insert one LLMCall row; bodies only when CTX_LLM_LOG_BODIES is on."""
    from retrieval.models import LLMCall  # the app registry is ready by the first call

    try:
        keep = bool(knobs.value("CTX_LLM_LOG_BODIES"))
        # A savepoint: a failed insert inside the caller's transaction must not poison it.
        with transaction.atomic():
            LLMCall.objects.create(
                pipeline=pipeline[:100],
                provider=provider,
                model=model[:200],
                duration_ms=max(0, duration_ms),
                tokens_in=max(0, tokens_in),
                tokens_out=max(0, tokens_out),
                ok=ok,
                error=error[:MAX_ERROR_CHARS],
                prompt=_clip(json.dumps(list(prompt), ensure_ascii=False)) if keep else "",
                response=_clip(response) if keep else "",
            )
    except Exception:
        log.warning("could not log an LLM call (%s, %s)", pipeline, provider, exc_info=True)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS] + "…"
