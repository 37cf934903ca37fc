"""The matcher machinery: what a matcher sees (Context), what it returns (Hit), and scanning.

Matchers run in a fixed priority order over the lower-cased query. Text a matcher took is
masked with NUL characters, which are neither letters nor spaces, so a later matcher can
neither match it nor reach across it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from retrieval.temporal.intent import DateRange, Direction

MASK = "\x00"


@dataclass(frozen=True, slots=True)
class Context:
    today: date
    tense: Direction


@dataclass(frozen=True, slots=True)
class Hit:
    """One matched phrase. `hint` None means: derive the direction from `ranges`."""

    kind: str
    span: tuple[int, int]
    weights: Mapping[str, float]
    ranges: tuple[DateRange, ...] = ()
    targets: Mapping[str, float] = field(default_factory=dict)
    recurrent: bool = False
    explicit: bool = True
    hint: Direction | None = None

    def direction(self, today: date) -> Direction:
        if self.hint is not None:
            return self.hint
        return ranges_direction(self.ranges, today)


def is_dated(ctx: Context, *markers: object) -> bool:
    """True when the cycle is pinned: by a marker (a year, a qualifier) or by the tense."""
    return any(markers) or ctx.tense in ("past", "future")


Builder = Callable[[re.Match[str], Context], Hit | None]
Scanner = Callable[[str, Context], list[Hit]]


def ranges_direction(ranges: Sequence[DateRange], today: date) -> Direction:
    """Return where `ranges` lie from today: all before, all after, or around it."""
    if not ranges:
        return "none"
    if all(rng.end < today for rng in ranges):
        return "past"
    if all(rng.start > today for rng in ranges):
        return "future"
    return "present"


def mask(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = MASK * (end - start)
    return "".join(chars)


def safe_build(build: Builder, match: re.Match[str], ctx: Context) -> Hit | None:
    """Return the builder's hit; a date out of range (year 0, day 31 of April) is no hit."""
    try:
        return build(match, ctx)
    except (ValueError, OverflowError):
        return None


Rule = tuple[re.Pattern[str], Builder]


def regex_scanner(*rules: Rule) -> Scanner:
    """Return a scanner that tries each (pattern, builder) in order, masking what it took."""

    def scan(text: str, ctx: Context) -> list[Hit]:
        hits: list[Hit] = []
        for pattern, build in rules:
            found = [safe_build(build, match, ctx) for match in pattern.finditer(text)]
            taken = [hit for hit in found if hit is not None]
            if taken:
                text = mask(text, (hit.span for hit in taken))
                hits.extend(taken)
        return hits

    return scan


def rules(build: Builder, *sources: str) -> tuple[Rule, ...]:
    """Return one rule per pattern source, all with the same builder."""
    return tuple((re.compile(source), build) for source in sources)
