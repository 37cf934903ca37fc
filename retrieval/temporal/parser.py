"""`parse(text, now)`: the deterministic temporal parser (English and German).

Matchers run in a fixed priority order; each masks the text it took so that a later, more
general matcher cannot take it again ("letzten Montag bis Mittwoch" is one weekday range,
not two weekdays). A matcher runs only when a word of its trigger classes occurs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Final

from retrieval.temporal.engine import Context, Hit, Scanner, mask
from retrieval.temporal.intent import CYCLIC_DIMENSIONS, DIMENSIONS, Direction, TemporalIntent
from retrieval.temporal.lexicon import Language
from retrieval.temporal.matchers_phases import HOLIDAY, MONTH_SEGMENT, TIME_OF_DAY, WEEKEND
from retrieval.temporal.matchers_spans import (
    ISO_DATE,
    RELATIVE_DAYS,
    RELATIVE_PERIOD,
    SINCE_UNTIL,
    WEEK_SEGMENT,
    WEEKDAY_RANGE,
)
from retrieval.temporal.matchers_words import (
    KEYWORD,
    KEYWORD_LIST,
    MONTH_NAME,
    QUARTER,
    RECURRENCE,
    VAGUE,
    WEEKDAY,
    YEAR,
)
from retrieval.temporal.tense import detect_language, detect_tense
from retrieval.temporal.triggers import TOKEN, has_typo_keyword, word_classes

# Longer queries are cut here: the parser reads questions, not documents, and this bounds
# the work per call.
MAX_CHARS: Final = 2_000

# Each matcher with the word classes (see `triggers`) of which at least one must occur in the
# query for the matcher to run at all; most queries skip most matchers. The keyword matcher
# always runs because it also catches typos, which no trigger can see.
MATCHERS: Final[tuple[tuple[Scanner, frozenset[str]], ...]] = (
    (ISO_DATE, frozenset({"digit"})),
    (WEEKDAY_RANGE, frozenset({"weekday"})),
    (SINCE_UNTIL, frozenset({"since"})),
    (WEEK_SEGMENT, frozenset({"week"})),
    (RELATIVE_PERIOD, frozenset({"unit"})),
    (RELATIVE_DAYS, frozenset({"unit"})),
    (HOLIDAY, frozenset({"holiday"})),
    (MONTH_SEGMENT, frozenset({"month_unit"})),
    (TIME_OF_DAY, frozenset({"time", "keyword", "weekday"})),
    (WEEKEND, frozenset({"weekend"})),
    (KEYWORD_LIST, frozenset({"keyword", "weekday"})),
    (RECURRENCE, frozenset({"weekday"})),
    (KEYWORD, frozenset()),
    (MONTH_NAME, frozenset({"month"})),
    (QUARTER, frozenset({"digit", "unit"})),
    (YEAR, frozenset({"digit"})),
    (WEEKDAY, frozenset({"weekday"})),
    (VAGUE, frozenset({"vague"})),
)

_APOSTROPHES: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u00b4": "'"})


def normalize(text: str) -> str:
    """Return `text` lower-cased with the same length (so spans stay valid) and ' apostrophes."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    return lowered.translate(_APOSTROPHES)


def _direction(hits: Sequence[Hit], ctx: Context) -> Direction:
    """Return the tense, or else the direction most hits point in (the first on a tie)."""
    if ctx.tense != "none":
        return ctx.tense
    directions = [hit.direction(ctx.today) for hit in hits]
    counts = Counter(direction for direction in directions if direction != "none")
    if not counts:
        return "none"
    best = max(counts.values())
    return next(d for d in directions if d != "none" and counts[d] == best)


def _merge_weights(hits: Sequence[Hit]) -> dict[str, float]:
    if len(hits) == 1:
        return dict(hits[0].weights)
    return {
        dim: max((hit.weights.get(dim, 0.0) for hit in hits), default=0.0) for dim in DIMENSIONS
    }


def _targets(hits: Sequence[Hit], weights: dict[str, float]) -> dict[str, float]:
    """Return per active cyclic dimension the target of the hit that weighs it most."""
    targets: dict[str, float] = {}
    for dim in CYCLIC_DIMENSIONS:
        if weights[dim] <= 0.0:
            continue
        holders = [hit for hit in hits if dim in hit.targets]
        if holders:
            targets[dim] = max(holders, key=lambda hit: hit.weights.get(dim, 0.0)).targets[dim]
        else:
            weights[dim] = 0.0  # a weight without a target cannot pull on anything
    return targets


def _assemble(hits: list[Hit], ctx: Context, language: Language) -> TemporalIntent:
    hits.sort(key=lambda hit: hit.span)
    weights = _merge_weights(hits)
    targets = _targets(hits, weights)
    return TemporalIntent(
        ranges=tuple(rng for hit in hits for rng in hit.ranges),
        direction=_direction(hits, ctx),
        weights=MappingProxyType(weights),
        targets=MappingProxyType(targets),
        recurrent=any(hit.recurrent for hit in hits),
        explicit=any(hit.explicit for hit in hits),
        matchers=tuple(hit.kind for hit in hits),
        spans=tuple(hit.span for hit in hits),
        language=language,
    )


def _run_matchers(text: str, ctx: Context, classes: set[str]) -> list[Hit]:
    hits: list[Hit] = []
    for scan, triggers in MATCHERS:
        if triggers and triggers.isdisjoint(classes):
            continue
        try:
            found = scan(text, ctx)
        except (ValueError, OverflowError):
            continue  # a date beyond year 1..9999: at the ends of the calendar only
        if found:
            text = mask(text, (hit.span for hit in found))
            hits.extend(found)
    return hits


def parse(text: str, now: datetime) -> TemporalIntent:
    """Return the temporal intent of a query; relative phrases are read in `now`'s time zone."""
    work = normalize(text[:MAX_CHARS])
    tokens = TOKEN.findall(work)
    language = detect_language(tokens)
    ctx = Context(today=now.date(), tense=detect_tense(work, language))
    classes = word_classes(work, tokens)
    if not classes and not has_typo_keyword(tokens):
        return TemporalIntent(direction=ctx.tense, language=language)
    return _assemble(_run_matchers(work, ctx, classes), ctx, language)
