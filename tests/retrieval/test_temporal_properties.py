"""Properties of the temporal parser: it never raises and its output is always well formed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.temporal import CYCLIC_DIMENSIONS, DIMENSIONS, TemporalIntent, parse
from retrieval.temporal.lexicon import HOLIDAYS, KEYWORDS, MONTHS, TIMES_OF_DAY, WEEKDAYS

NOW = datetime(2025, 3, 12, 14, 0, tzinfo=ZoneInfo("Europe/Berlin"))

# Inclusive bounds of each cyclic target.
TARGET_BOUNDS = {
    "weekday": (0.0, 6.0),
    "month": (1.0, 12.0),
    "quarter": (1.0, 4.0),
    "week": (1.0, 53.0),
    "monthday": (1.0, 31.0),
    "seasonal": (1.0, 366.0),
    "daily": (0.0, 24.0),
}

_MORE_WORDS = (
    "seit since bis until till von from to through und and oder or every jeden immer",
    "letzte letzten nächste nächsten übernächste vorletzte last next this diese",
    "woche week monat month jahr year quartal quarter wochenende weekend tage days",
    "vor ago in am im on the anfang ende mitte beginning end of mid- des der",
    "dienstags mondays morgens abends recently kürzlich a while soon q3 2024 2025",
    "3 zwei two 15. 14.03.2025 2025-03-14 .. - gesten yesterdy did will habe gemacht",
)
TEMPORAL_WORDS = sorted(
    {
        *WEEKDAYS,
        *MONTHS,
        *KEYWORDS,
        *HOLIDAYS,
        *TIMES_OF_DAY,
        *(word for line in _MORE_WORDS for word in line.split()),
    }
)


def assert_well_formed(intent: TemporalIntent, text: str) -> None:
    assert tuple(intent.weights) == DIMENSIONS
    assert all(0.0 <= weight <= 1.0 for weight in intent.weights.values())
    active = {dim for dim in CYCLIC_DIMENSIONS if intent.weights[dim] > 0}
    assert set(intent.targets) == active
    for dim, target in intent.targets.items():
        low, high = TARGET_BOUNDS[dim]
        assert low <= target <= high, (dim, target)
    assert all(rng.start <= rng.end for rng in intent.ranges)
    assert intent.direction in ("past", "future", "present", "none")
    assert intent.language in ("en", "de")
    assert len(intent.matchers) == len(intent.spans)
    assert intent.has_intent == bool(intent.matchers)
    previous_end = 0
    for start, end in intent.spans:
        assert previous_end <= start < end <= len(text)
        previous_end = end
    if not intent.has_intent:
        assert not intent.ranges and not intent.recurrent


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_it_never_raises_on_arbitrary_text(text: str) -> None:
    assert_well_formed(parse(text, NOW), text)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(TEMPORAL_WORDS), min_size=1, max_size=8).map(" ".join),
    st.datetimes(
        min_value=datetime(1901, 1, 1),
        max_value=datetime(2199, 12, 31),
        timezones=st.sampled_from([UTC, ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo")]),
    ),
)
def test_it_never_raises_on_combinations_of_temporal_words(text: str, now: datetime) -> None:
    assert_well_formed(parse(text, now), text)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(TEMPORAL_WORDS), st.sampled_from([datetime.min, datetime.max]))
def test_it_never_raises_at_the_ends_of_the_calendar(word: str, edge: datetime) -> None:
    now = edge.replace(tzinfo=UTC) if edge.year == 1 else edge - timedelta(days=1)
    assert_well_formed(parse(f"{word} {word}", now), f"{word} {word}")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TEMPORAL_WORDS), min_size=1, max_size=6).map(" ".join))
def test_it_is_deterministic(text: str) -> None:
    assert parse(text, NOW) == parse(text, NOW)


_PLAIN_LINES = (
    "database migration deploy western morgan stanley pipeline api key tenant search query",
    "the what did we decide about main branch market decided plans german english stand-up",
    "notes review budget how do configure celery worker pool marching mayor augustus",
)
PLAIN_WORDS = [word for line in _PLAIN_LINES for word in line.split()]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLAIN_WORDS), min_size=1, max_size=10).map(" ".join))
def test_it_finds_no_intent_in_plain_words(text: str) -> None:
    intent = parse(text, NOW)

    assert not intent.has_intent
    assert dict(intent.weights) == dict.fromkeys(DIMENSIONS, 0.0)
