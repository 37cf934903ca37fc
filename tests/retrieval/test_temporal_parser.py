"""Golden table of the temporal parser, with the clock frozen on Wednesday 2025-03-12 14:00
in Berlin: this week is Mon 03-10..Sun 03-16, last week 03-03..03-09, next 03-17..03-23.

Each row: query, expected ranges ("start..end" or one day, comma separated), direction, the
dimensions with a weight above zero (all others must be exactly 0), and the dominant one(s).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import NamedTuple
from zoneinfo import ZoneInfo

import pytest

from retrieval.temporal import DIMENSIONS, DateRange, parse

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2025, 3, 12, 14, 0, tzinfo=BERLIN)


class Golden(NamedTuple):
    query: str
    ranges: str
    direction: str
    active: str
    dominant: str


def _range(text: str) -> DateRange:
    start, _, end = text.partition("..")
    return DateRange(date.fromisoformat(start), date.fromisoformat(end or start))


GERMAN = [
    Golden("letzten Montag bis Mittwoch", "2025-03-03..2025-03-05", "past", "linear", "linear"),
    Golden("von Montag bis Mittwoch", "2025-03-10..2025-03-12", "present", "linear", "linear"),
    Golden(
        "was habe ich von Montag bis Mittwoch gemacht",
        "2025-03-10..2025-03-12",
        "past",
        "linear",
        "linear",
    ),
    Golden("seit März", "2025-03-01..2025-03-12", "past", "linear", "linear"),
    Golden("seit Montag", "2025-03-10..2025-03-12", "past", "linear", "linear"),
    Golden("bis Freitag", "2025-03-12..2025-03-14", "future", "linear", "linear"),
    Golden("seit gestern", "2025-03-11..2025-03-12", "past", "linear", "linear"),
    Golden("bis zum 15. März", "2025-03-12..2025-03-15", "future", "linear", "linear"),
    Golden("seit 3 Tagen", "2025-03-09..2025-03-12", "past", "linear", "linear"),
    Golden("Anfang der Woche", "2025-03-10..2025-03-11", "past", "linear weekday", "linear"),
    Golden("Ende der Woche", "2025-03-13..2025-03-14", "future", "linear weekday", "linear"),
    Golden("letzte Woche", "2025-03-03..2025-03-09", "past", "linear", "linear"),
    Golden("diese Woche", "2025-03-10..2025-03-16", "present", "linear", "linear"),
    Golden("nächste Woche", "2025-03-17..2025-03-23", "future", "linear", "linear"),
    Golden("übernächste Woche", "2025-03-24..2025-03-30", "future", "linear", "linear"),
    Golden("vorletzte Woche", "2025-02-24..2025-03-02", "past", "linear", "linear"),
    Golden("letzten Monat", "2025-02-01..2025-02-28", "past", "linear", "linear"),
    Golden("nächsten Monat", "2025-04-01..2025-04-30", "future", "linear", "linear"),
    Golden("vor 3 Tagen", "2025-03-09", "past", "linear", "linear"),
    Golden("vor zwei Wochen", "2025-02-24..2025-03-02", "past", "linear", "linear"),
    Golden("in zwei Tagen", "2025-03-14", "future", "linear", "linear"),
    Golden("in den letzten zwei Wochen", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("Weihnachten", "2024-12-24..2024-12-26", "past", "seasonal", "seasonal"),
    Golden("Heiligabend", "2024-12-24", "past", "seasonal", "seasonal"),
    Golden("Silvester", "2024-12-31", "past", "seasonal", "seasonal"),
    Golden("Neujahr", "2025-01-01", "past", "seasonal", "seasonal"),
    Golden("Ostern 2024", "2024-03-29..2024-04-01", "past", "linear seasonal", "linear"),
    Golden("Pfingsten", "2025-06-08..2025-06-09", "future", "seasonal", "seasonal"),
    Golden("Karfreitag", "2025-04-18", "future", "seasonal", "seasonal"),
    Golden("Christi Himmelfahrt", "2025-05-29", "future", "seasonal", "seasonal"),
    Golden("Monatsanfang", "2025-03-01..2025-03-10", "past", "linear monthday", "monthday"),
    Golden("Monatsende", "2025-03-21..2025-03-31", "future", "linear monthday", "monthday"),
    Golden("Mitte des Monats", "2025-03-11..2025-03-20", "present", "linear monthday", "monthday"),
    Golden(
        "Anfang nächsten Monats", "2025-04-01..2025-04-10", "future", "linear monthday", "linear"
    ),
    Golden("morgens", "", "none", "daily", "daily"),
    Golden("nachmittags", "", "none", "daily", "daily"),
    Golden("heute Morgen", "2025-03-12", "present", "linear daily", "linear"),
    Golden("morgen", "2025-03-13", "future", "linear", "linear"),
    Golden("gestern Abend", "2025-03-11", "past", "linear daily", "linear"),
    Golden("am Wochenende", "2025-03-15..2025-03-16", "future", "linear weekday", "linear"),
    Golden("letztes Wochenende", "2025-03-08..2025-03-09", "past", "linear weekday", "linear"),
    Golden("gestern und heute", "2025-03-11, 2025-03-12", "past", "linear", "linear"),
    Golden("immer dienstags", "", "none", "weekday", "weekday"),
    Golden("jeden Freitag", "", "none", "weekday", "weekday"),
    Golden("dienstags", "", "none", "weekday", "weekday"),
    Golden("gesten", "2025-03-11", "past", "linear", "linear"),
    Golden("vorgestern", "2025-03-10", "past", "linear", "linear"),
    Golden("übermorgen", "2025-03-14", "future", "linear", "linear"),
    Golden("Ende März 2025", "2025-03-21..2025-03-31", "future", "linear", "linear"),
    Golden("Anfang Mai", "2025-05-01..2025-05-10", "future", "month monthday", "month"),
    Golden("im März", "2025-03-01..2025-03-31", "present", "month", "month"),
    Golden("März 2025", "2025-03-01..2025-03-31", "present", "linear", "linear"),
    Golden(
        "was haben wir im August besprochen",
        "2024-08-01..2024-08-31",
        "past",
        "linear month",
        "linear",
    ),
    Golden("was mache ich am Dienstag", "2025-03-18", "future", "linear weekday", "linear"),
    Golden("was habe ich am Dienstag gemacht", "2025-03-11", "past", "linear weekday", "linear"),
    Golden("Meeting am Dienstag", "2025-03-11", "past", "linear weekday", "linear"),
    Golden("im Jahr 2023", "2023-01-01..2023-12-31", "past", "linear", "linear"),
    Golden("3. Quartal 2024", "2024-07-01..2024-09-30", "past", "linear", "linear"),
    Golden("kürzlich", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("neulich", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("vor kurzem", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("Termine Morgan Stanley", "", "none", "", ""),
    Golden("seit Weihnachten", "2024-12-24..2025-03-12", "past", "linear", "linear"),
    Golden("seit dem 01.03.2025", "2025-03-01..2025-03-12", "past", "linear", "linear"),
    Golden(
        "was habe ich am Dienstagabend gemacht",
        "2025-03-11",
        "past",
        "linear weekday daily",
        "linear",
    ),
]

ENGLISH = [
    Golden("western movies", "", "none", "", ""),
    Golden("Morgan Stanley", "", "none", "", ""),
    Golden("may I ask a question", "", "none", "", ""),
    Golden("easter egg in the settings page", "", "none", "", ""),
    Golden("good morning team", "", "none", "", ""),
    Golden("2023 budget review", "", "none", "", ""),
    Golden("what did we decide before the migration", "", "past", "", ""),
    Golden("every Tuesday", "", "none", "weekday", "weekday"),
    Golden("on Tuesdays", "", "none", "weekday", "weekday"),
    Golden("next Monday through Thursday", "2025-03-17..2025-03-20", "future", "linear", "linear"),
    Golden("until Friday", "2025-03-12..2025-03-14", "future", "linear", "linear"),
    Golden("since March", "2025-03-01..2025-03-12", "past", "linear", "linear"),
    Golden("3 days ago", "2025-03-09", "past", "linear", "linear"),
    Golden("two weeks ago", "2025-02-24..2025-03-02", "past", "linear", "linear"),
    Golden("in 2 days", "2025-03-14", "future", "linear", "linear"),
    Golden("in the last 3 days", "2025-03-09..2025-03-12", "past", "linear", "linear"),
    Golden("over Christmas", "2024-12-24..2024-12-26", "past", "seasonal", "seasonal"),
    Golden(
        "what did we do over Christmas",
        "2024-12-24..2024-12-26",
        "past",
        "linear seasonal",
        "linear",
    ),
    Golden("Easter 2024", "2024-03-29..2024-04-01", "past", "linear seasonal", "linear"),
    Golden("Whitsun", "2025-06-08..2025-06-09", "future", "seasonal", "seasonal"),
    # A simple past with its subject ("what happened") points back: last year's Whitsun.
    Golden(
        "what happened at Whitsun", "2024-05-19..2024-05-20", "past", "linear seasonal", "linear"
    ),
    Golden("Christmas Eve", "2024-12-24", "past", "seasonal", "seasonal"),
    Golden("New Year's Eve", "2024-12-31", "past", "seasonal", "seasonal"),
    Golden("Good Friday", "2025-04-18", "future", "seasonal", "seasonal"),
    Golden("Easter Monday", "2025-04-21", "future", "seasonal", "seasonal"),
    Golden("recently", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("lately", "2025-02-26..2025-03-12", "past", "linear", "linear"),
    Golden("a while ago", "2024-09-13..2025-02-19", "past", "linear", "linear"),
    Golden("beginning of the week", "2025-03-10..2025-03-11", "past", "linear weekday", "linear"),
    Golden("end of the month", "2025-03-21..2025-03-31", "future", "linear monthday", "monthday"),
    Golden("mid-month", "2025-03-11..2025-03-20", "present", "linear monthday", "monthday"),
    Golden("Q3 2024", "2024-07-01..2024-09-30", "past", "linear", "linear"),
    Golden("Q3", "2025-07-01..2025-09-30", "future", "quarter", "quarter"),
    Golden("last week", "2025-03-03..2025-03-09", "past", "linear", "linear"),
    Golden("this week", "2025-03-10..2025-03-16", "present", "linear", "linear"),
    Golden("next month", "2025-04-01..2025-04-30", "future", "linear", "linear"),
    Golden("last month", "2025-02-01..2025-02-28", "past", "linear", "linear"),
    Golden("the week before last", "2025-02-24..2025-03-02", "past", "linear", "linear"),
    Golden("yesterday", "2025-03-11", "past", "linear", "linear"),
    Golden("yesterdy", "2025-03-11", "past", "linear", "linear"),
    Golden("the day before yesterday", "2025-03-10", "past", "linear", "linear"),
    Golden("day after tomorrow", "2025-03-14", "future", "linear", "linear"),
    Golden("today's standup notes", "2025-03-12", "present", "linear", "linear"),
    Golden("this morning", "2025-03-12", "present", "linear daily", "linear"),
    Golden("in the afternoon", "", "none", "daily", "daily"),
    Golden("last weekend", "2025-03-08..2025-03-09", "past", "linear weekday", "linear"),
    Golden("Monday or Tuesday", "2025-03-10, 2025-03-11", "past", "linear weekday", "linear"),
    Golden("what did I do on Tuesday", "2025-03-11", "past", "linear weekday", "linear"),
    Golden("what will I do on Tuesday", "2025-03-18", "future", "linear weekday", "linear"),
    Golden("August 2024", "2024-08-01..2024-08-31", "past", "linear", "linear"),
    Golden("in March", "2025-03-01..2025-03-31", "present", "month", "month"),
    Golden("March 2025", "2025-03-01..2025-03-31", "present", "linear", "linear"),
    Golden("March 15, 2024", "2024-03-15", "past", "linear", "linear"),
    Golden("in 2023", "2023-01-01..2023-12-31", "past", "linear", "linear"),
    Golden("2025-03-14", "2025-03-14", "future", "linear", "linear"),
    Golden("since 2025-03-01", "2025-03-01..2025-03-12", "past", "linear", "linear"),
    Golden("until Christmas", "2025-03-12..2025-12-26", "future", "linear", "linear"),
    Golden(
        "what happened between Monday and Wednesday",
        "2025-03-10..2025-03-12",
        "past",
        "linear",
        "linear",
    ),
    Golden("notes from 14.03.2025", "2025-03-14", "future", "linear", "linear"),
    Golden("2025-03-01 to 2025-03-10", "2025-03-01..2025-03-10", "past", "linear", "linear"),
    Golden("2025-03-01..2025-03-10", "2025-03-01..2025-03-10", "past", "linear", "linear"),
]


def _weights_of(row: Golden) -> tuple[set[str], set[str]]:
    intent = parse(row.query, NOW)
    active = {dim for dim in DIMENSIONS if intent.weights[dim] > 0}
    top = max(intent.weights.values())
    dominant = {dim for dim in active if intent.weights[dim] == top}
    return active, dominant


@pytest.mark.parametrize("row", GERMAN + ENGLISH, ids=lambda row: row.query)
def test_it_resolves_the_golden_query(row: Golden) -> None:
    intent = parse(row.query, NOW)
    expected = tuple(_range(part.strip()) for part in row.ranges.split(",") if part.strip())
    active, dominant = _weights_of(row)

    assert intent.ranges == expected
    assert intent.direction == row.direction
    assert active == set(row.active.split())
    assert dominant == set(row.dominant.split())
    assert intent.has_intent == bool(row.active)


def test_it_has_enough_golden_rows() -> None:
    assert len(GERMAN) >= 35
    assert len(GERMAN) + len(ENGLISH) >= 80


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("letzten Montag bis Mittwoch", ("weekday_range",)),
        ("seit März", ("since_until",)),
        ("Anfang der Woche", ("week_segment",)),
        ("übernächste Woche", ("relative_period",)),
        ("vor 3 Tagen", ("relative_days",)),
        ("Pfingsten", ("holiday",)),
        ("Monatsanfang", ("month_segment",)),
        ("morgens", ("time_of_day",)),
        ("am Wochenende", ("weekend",)),
        ("gestern und heute", ("keyword_list",)),
        ("immer dienstags", ("recurrence",)),
        ("gesten", ("keyword",)),
        ("Ende März 2025", ("month_name",)),
        ("Q3 2024", ("quarter",)),
        ("in 2023", ("year",)),
        ("what did I do on Tuesday", ("weekday",)),
        ("recently", ("vague",)),
        ("2025-03-14", ("iso_date",)),
        ("Monday morning", ("weekday", "time_of_day")),
        ("gestern Abend und Ostern 2024", ("time_of_day", "holiday")),
    ],
)
def test_it_reports_the_matchers_in_text_order(query: str, kinds: tuple[str, ...]) -> None:
    assert parse(query, NOW).matchers == kinds


def test_it_reports_spans_that_cover_the_temporal_words() -> None:
    query = "Was habe ich am Dienstag zur Migration gemacht?"
    intent = parse(query, NOW)

    assert [query[start:end] for start, end in intent.spans] == ["am Dienstag"]


def test_it_keeps_spans_on_the_original_text_when_lowering_changes_length() -> None:
    query = "İİİ was war gestern"  # "İ".lower() is two characters
    intent = parse(query, NOW)

    assert [query[start:end] for start, end in intent.spans] == ["gestern"]


@pytest.mark.parametrize(
    ("query", "targets"),
    [
        ("immer dienstags", {"weekday": 1.0}),
        ("jeden Freitag", {"weekday": 4.0}),
        ("morgens", {"daily": 8.0}),
        ("abends", {"daily": 20.0}),
        ("Weihnachten", {"seasonal": 360.0}),  # 2024-12-25 is day 360 of a leap year
        ("im März", {"month": 3.0}),
        ("Q3", {"quarter": 3.0}),
        ("Monatsanfang", {"monthday": 5.5}),
        ("an Wochenenden", {"weekday": 5.5}),
        ("yesterday", {}),
    ],
)
def test_it_sets_a_target_for_every_active_cycle(query: str, targets: dict[str, float]) -> None:
    assert dict(parse(query, NOW).targets) == targets


@pytest.mark.parametrize(
    ("query", "recurrent", "explicit"),
    [
        ("immer dienstags", True, True),
        ("every Tuesday", True, True),
        ("morgens", True, True),
        ("an Wochenenden", True, True),
        ("in March 2025", False, True),
        ("2025-03-14", False, True),
        ("letzte Woche", False, True),
        ("recently", False, False),
        ("kürzlich", False, False),
        ("a while ago", False, False),
        ("neulich", False, False),
        ("lately", False, False),
    ],
)
def test_it_flags_recurrent_and_explicit(query: str, recurrent: bool, explicit: bool) -> None:
    intent = parse(query, NOW)

    assert intent.has_intent
    assert (intent.recurrent, intent.explicit) == (recurrent, explicit)


@pytest.mark.parametrize(
    ("query", "language"),
    [
        ("was habe ich letzte Woche gemacht", "de"),
        ("Pfingsten", "de"),
        ("what did I do last week", "en"),
        ("over Christmas", "en"),
    ],
)
def test_it_guesses_the_language(query: str, language: str) -> None:
    assert parse(query, NOW).language == language


def test_it_reads_relative_days_in_the_time_zone_of_now() -> None:
    # 23:30 UTC on the 12th is already 00:30 on the 13th in Berlin.
    late = datetime(2025, 3, 12, 23, 30, tzinfo=ZoneInfo("UTC")).astimezone(BERLIN)

    assert parse("heute", late).ranges == (DateRange.day(date(2025, 3, 13)),)
    assert parse("heute", late.astimezone(ZoneInfo("UTC"))).ranges == (
        DateRange.day(date(2025, 3, 12)),
    )


def test_it_does_not_take_morgens_or_am_morgen_for_tomorrow() -> None:
    for query in ("morgens", "am Morgen", "heute Morgen", "jeden Morgen"):
        intent = parse(query, NOW)
        assert DateRange.day(date(2025, 3, 13)) not in intent.ranges, query
        assert intent.weights["daily"] > 0, query


def test_it_gives_a_year_implied_holiday_a_linear_weight_and_a_bare_one_none() -> None:
    assert parse("Weihnachten", NOW).weights["linear"] == 0.0
    assert parse("letzte Weihnachten", NOW).weights["linear"] > 0.0
    assert parse("Weihnachten 2023", NOW).ranges == (
        DateRange(date(2023, 12, 24), date(2023, 12, 26)),
    )
