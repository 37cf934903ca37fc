"""Temporal gravity: how much a block's dates lift its retrieval score under a query's intent.

Two pure factors, both >= 1 (a block is never pushed down by time, and a block without
dates keeps its score):

- cyclic = 1 + sum over active cyclic dimensions of weight * g, where g is the best Gaussian
  match over all of the block's dates of the circular phase distance to the target. The sum
  (not a product) lets each matching cycle add its own lift and a miss simply add nothing.
- linear = 1 + weight_linear * f, f the best over dates and target ranges of
  1 / (1 + d) ** p, d the days to the nearest edge of the range (0 inside it), and 0 beyond
  the cutoff.

The score is multiplied by cyclic * linear, capped at `cap`.
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from types import MappingProxyType
from typing import Final, TypedDict

from retrieval.temporal.anchors import anchor_dimensions
from retrieval.temporal.intent import CYCLIC_DIMENSIONS, DateRange, TemporalIntent

# Width of each cycle's Gaussian as a fraction of the cycle (weekday .07 of 7 days is about
# half a day; seasonal .08 of a year is about a month).
SIGMAS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "weekday": 0.07,
        "month": 0.10,
        "quarter": 0.12,
        "week": 0.08,
        "monthday": 0.10,
        "seasonal": 0.08,
        "daily": 0.08,
    }
)
# Cycle lengths; "week" is the mean ISO year (71 long years in 400), "monthday" uses the
# length of the block date's own month so that the last days of every month sit together.
PERIODS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "weekday": 7.0,
        "month": 12.0,
        "quarter": 4.0,
        "week": 52.1775,
        "seasonal": 365.25,
        "daily": 24.0,
    }
)
LINEAR_EXPONENT: Final = 1.5
FUTURE_SHARPNESS: Final = 1.2
TELESCOPING: Final = 0.3
TELESCOPING_DAYS: Final = 30.0
CUTOFF_DAYS: Final = 14
RANGE_CUTOFF_DAYS: Final = 60
DEFAULT_CAP: Final = 2.0


class GravityExplain(TypedDict):
    cyclic: float
    linear: float
    multiplier: float
    best_dims: dict[str, float]


def phase_distance(a: float, b: float, period: float) -> float:
    """Return the circular distance of two phases as a fraction of the period (0..0.5)."""
    gap = abs(a - b) % period
    return min(gap, period - gap) / period


def cyclic_match(dim: str, target: float, phase: float, period: float) -> float:
    """Return the Gaussian match (0..1) of a phase to its target in one dimension."""
    distance = phase_distance(target, phase, period)
    return math.exp(-0.5 * (distance / SIGMAS[dim]) ** 2)


def _period(dim: str, moment: datetime) -> float:
    if dim == "monthday":
        return float(calendar.monthrange(moment.year, moment.month)[1])
    return PERIODS[dim]


def _has_time(moment: datetime) -> bool:
    """False for an exact midnight, which is how a date without a time arrives."""
    return (moment.hour, moment.minute, moment.second, moment.microsecond) != (0, 0, 0, 0)


def best_cyclic(intent: TemporalIntent, moments: Sequence[datetime]) -> dict[str, float]:
    """Return per active cyclic dimension the best match over all `moments`."""
    best: dict[str, float] = {}
    phases = [anchor_dimensions(moment) for moment in moments]
    for dim in CYCLIC_DIMENSIONS:
        if intent.weights.get(dim, 0.0) <= 0.0 or dim not in intent.targets:
            continue
        usable = [
            (moment, phase)
            for moment, phase in zip(moments, phases, strict=True)
            if dim != "daily" or _has_time(moment)
        ]
        target = intent.targets[dim]
        scores = [cyclic_match(dim, target, ph[dim], _period(dim, m)) for m, ph in usable]
        best[dim] = max(scores, default=0.0)
    return best


def cyclic_factor(intent: TemporalIntent, best: Mapping[str, float]) -> float:
    """Return 1 + the weighted sum of the best match per active cyclic dimension."""
    return 1.0 + sum(intent.weights[dim] * score for dim, score in best.items())


def linear_exponent(day: date, today: date) -> float:
    """Return p for a block date: 1.2 * 1.5 ahead of today; behind it 1.5 softened as the
    date ages (forward telescoping: old memories feel closer than they are)."""
    if day > today:
        return FUTURE_SHARPNESS * LINEAR_EXPONENT
    age = (today - day).days
    return LINEAR_EXPONENT / (1.0 + TELESCOPING * math.log(1.0 + age / TELESCOPING_DAYS))


def linear_match(target: DateRange, day: date, today: date) -> float:
    """Return 1 / (1 + d) ** p for a block date `d` days from the range, 0 past the cutoff."""
    distance = target.distance(day)
    cutoff = RANGE_CUTOFF_DAYS if target.days > 1 else CUTOFF_DAYS
    if distance > cutoff:
        return 0.0
    return float((1.0 + distance) ** -linear_exponent(day, today))


def best_linear(intent: TemporalIntent, days: Sequence[date], today: date) -> float:
    return max(
        (linear_match(rng, day, today) for rng in intent.ranges for day in days), default=0.0
    )


def _local(moment: datetime, now: datetime) -> datetime:
    if moment.tzinfo is not None and now.tzinfo is not None:
        return moment.astimezone(now.tzinfo)
    return moment


def apply_gravity(
    score: float,
    intent: TemporalIntent,
    block_dates: Sequence[datetime],
    now: datetime,
    *,
    cap: float = DEFAULT_CAP,
) -> tuple[float, GravityExplain]:
    """Return the score lifted by the block's dates under `intent`, and how it was lifted.

    Naive datetimes are taken to be in `now`'s time zone. A negative score is divided
    instead, so that a lift still moves it up.
    """
    if not intent.has_intent or not block_dates:
        return score, GravityExplain(cyclic=1.0, linear=1.0, multiplier=1.0, best_dims={})
    moments = [_local(moment, now) for moment in block_dates]
    best = best_cyclic(intent, moments)
    days = [moment.date() for moment in moments]
    linear = 1.0 + intent.weights.get("linear", 0.0) * best_linear(intent, days, now.date())
    cyclic = cyclic_factor(intent, best)
    multiplier = max(1.0, min(cap, cyclic * linear))
    explain = GravityExplain(cyclic=cyclic, linear=linear, multiplier=multiplier, best_dims=best)
    return (score * multiplier if score >= 0 else score / multiplier), explain
