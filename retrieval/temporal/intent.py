"""The parser's result types: inclusive date ranges and the temporal intent of a query."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from types import MappingProxyType
from typing import Final, Literal

from retrieval.temporal.lexicon import Language

Direction = Literal["past", "future", "present", "none"]

DIMENSIONS: Final[tuple[str, ...]] = (
    "linear",
    "weekday",
    "week",
    "month",
    "quarter",
    "monthday",
    "seasonal",
    "daily",
)
CYCLIC_DIMENSIONS: Final[tuple[str, ...]] = DIMENSIONS[1:]


@dataclass(frozen=True, slots=True)
class DateRange:
    """An inclusive range of calendar days."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"range ends before it starts: {self.start} > {self.end}")

    @classmethod
    def day(cls, day: date) -> DateRange:
        return cls(day, day)

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end

    def distance(self, day: date) -> int:
        """Return the days from `day` to the nearest edge, 0 when the range contains it."""
        if day < self.start:
            return (self.start - day).days
        if day > self.end:
            return (day - self.end).days
        return 0

    def shift(self, days: int) -> DateRange:
        step = timedelta(days=days)
        return DateRange(self.start + step, self.end + step)


def zero_weights() -> Mapping[str, float]:
    return MappingProxyType(dict.fromkeys(DIMENSIONS, 0.0))


def _empty() -> Mapping[str, float]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class TemporalIntent:
    """What a query says about time.

    `weights` always holds every dimension of DIMENSIONS (0..1); `targets` holds the cyclic
    phase for each cyclic dimension whose weight is above zero. `matchers[i]` fired on the
    text at `spans[i]`; both are in text order.
    """

    ranges: tuple[DateRange, ...] = ()
    direction: Direction = "none"
    weights: Mapping[str, float] = field(default_factory=zero_weights, hash=False)
    targets: Mapping[str, float] = field(default_factory=_empty, hash=False)
    recurrent: bool = False
    explicit: bool = False
    matchers: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()
    language: Language = "en"

    @property
    def has_intent(self) -> bool:
        """True when some matcher fired; tense alone ("what did we decide") is no intent."""
        return bool(self.matchers)

    @property
    def active_dimensions(self) -> tuple[str, ...]:
        return tuple(dim for dim in DIMENSIONS if self.weights.get(dim, 0.0) > 0.0)
