"""The one weight table: how strongly each kind of temporal phrase pulls on each dimension.

Dimensions (see `intent.DIMENSIONS`): `linear` rewards closeness on the time line to the
resolved ranges; the cyclic ones reward the same phase in any cycle (`weekday` Monday..Sunday,
`week` ISO week, `month`, `quarter`, `monthday` day of month, `seasonal` day of year, `daily`
hour). A matcher names one or more profiles; the intent takes the largest weight per
dimension over all profiles of all matchers that fired.

Why these numbers:
- A named day or span ("gestern", "2025-03-14", "letzte Woche") is a point on the time line:
  only `linear` counts, since a cyclic boost would reward the same weekday in every week.
- A phrase without a year ("im März", "Weihnachten", "Monatsanfang") is a phase of a cycle
  first. It gets `linear` only when something pins the cycle (a qualifier, a year, or a past
  or future tense), and then the phase keeps a small weight because the pinning is a guess.
- Recurrence ("immer dienstags", "jeden Freitag", "morgens") is purely cyclic: `linear` 0.
- A bare weekday is resolved to one date by tense; the weekday keeps 0.3 so that a wrong
  guess of the week still finds the right day.
- Vague phrases ("recently", "kürzlich") get a soft 0.4 `linear` prior.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from retrieval.temporal.intent import DIMENSIONS

PROFILES: Final[Mapping[str, Mapping[str, float]]] = MappingProxyType(
    {
        "point": {"linear": 1.0},
        "weekday_point": {"linear": 0.9, "weekday": 0.3},
        "week_segment": {"linear": 0.8, "weekday": 0.5},
        "weekend": {"linear": 0.8, "weekday": 0.5},
        "weekend_recurrent": {"weekday": 1.0},
        "weekday_recurrent": {"weekday": 1.0},
        "month_bare": {"month": 1.0},
        "month_dated": {"linear": 0.8, "month": 0.3},
        "month_segment_bare": {"monthday": 1.0, "linear": 0.3},
        "month_segment_dated": {"linear": 0.9, "monthday": 0.3},
        # Added to a month name with a segment but no year ("Anfang Mai").
        "segment_of_month": {"monthday": 0.5},
        "quarter_bare": {"quarter": 1.0},
        "quarter_dated": {"linear": 0.8, "quarter": 0.3},
        "holiday_bare": {"seasonal": 1.0},
        "holiday_dated": {"linear": 0.8, "seasonal": 0.5},
        "time_of_day": {"daily": 1.0},
        "time_of_day_dated": {"linear": 0.8, "daily": 0.6},
        "vague": {"linear": 0.4},
    }
)


@functools.cache
def weights_for(*profiles: str) -> Mapping[str, float]:
    """Return weights over every dimension, the largest of the named profiles per dimension.

    Cached and read-only: matchers ask for the same few combinations on every query.
    """
    weights = dict.fromkeys(DIMENSIONS, 0.0)
    for name in profiles:
        for dim, weight in PROFILES[name].items():
            weights[dim] = max(weights[dim], weight)
    return MappingProxyType(weights)
