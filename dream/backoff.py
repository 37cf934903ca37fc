"""The back-off cooldown of a block between dream cycles: pure functions over its level.

A cycle ends in one of three outcomes:

- `changed`: it created or removed at least one link → the level drops to 0;
- `unchanged`: it had candidates but changed nothing → the level rises by 1;
- `inert`: no candidate was related at all (no proposal) → the level rises by INERT_OFFSET.

The cooldown is MIN while the level is within GRACE, then grows with the curve and is capped:

    exp     MIN x FACTOR^n
    log     MIN x (1 + FACTOR x ln(1 + n))
    linear  MIN x (1 + FACTOR x n)
    off     MIN (no growth)

where n = level - GRACE. A new or changed neighbour makes a block eligible at once anyway
(event-driven re-evaluation), so a long cooldown never hides new material for long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

Outcome = Literal["changed", "unchanged", "inert"]
Curve = Literal["exp", "log", "linear", "off"]
MAX_LEVEL = 1000  # beyond any cap; keeps FACTOR^n finite


@dataclass(frozen=True)
class Policy:
    curve: Curve = "exp"
    min_hours: float = 12.0
    factor: float = 1.6
    grace: int = 0
    cap_days: float = 45.0
    inert_offset: int = 7
    retry_minutes: float = 5.0

    @classmethod
    def from_settings(cls, cfg: dict[str, Any]) -> Policy:
        return cls(
            curve=cfg["CTX_DREAM_BACKOFF"],
            min_hours=cfg["CTX_DREAM_BACKOFF_MIN_HOURS"],
            factor=cfg["CTX_DREAM_BACKOFF_FACTOR"],
            grace=cfg["CTX_DREAM_BACKOFF_GRACE"],
            cap_days=cfg["CTX_DREAM_BACKOFF_CAP_DAYS"],
            inert_offset=cfg["CTX_DREAM_INERT_OFFSET"],
            retry_minutes=cfg["CTX_DREAM_RETRY_MINUTES"],
        )


def next_level(level: int, outcome: Outcome, policy: Policy) -> int:
    if outcome == "changed":
        return 0
    step = policy.inert_offset if outcome == "inert" else 1
    return min(MAX_LEVEL, level + step)


def cooldown(level: int, policy: Policy) -> timedelta:
    """How long a block at `level` waits before its next cycle."""
    base = policy.min_hours
    n = max(0, level - policy.grace)
    if n == 0 or policy.curve == "off":
        hours = base
    elif policy.curve == "exp":
        hours = base * policy.factor ** min(n, 200)
    elif policy.curve == "log":
        hours = base * (1 + policy.factor * math.log1p(n))
    else:
        hours = base * (1 + policy.factor * n)
    cap_hours = policy.cap_days * 24
    return timedelta(hours=min(hours, max(cap_hours, base)))


def retry_delay(policy: Policy) -> timedelta:
    """After a transient failure: a short fixed delay that does not raise the level."""
    return timedelta(minutes=policy.retry_minutes)
