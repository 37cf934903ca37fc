"""Dates found in content, their precision, and the cyclic phases of a moment."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from retrieval.temporal import anchor_dimensions, extract_anchors, extract_dates
from retrieval.temporal.anchors import MAX_ANCHORS, MAX_SCAN_CHARS

MARCH_15 = date(2024, 3, 15)


@pytest.mark.parametrize(
    "text",
    [
        "released 2024-03-15",
        "at 2024-03-15T10:00 the job ran",
        "at 2024-03-15 10:00:00+01:00",
        "am 15.03.2024 besprochen",
        "am 15.3.24 besprochen",
        "due 03/15/2024",
        "due 15/03/2024",  # not a US date, so read day first
        "on March 15, 2024",
        "on Mar 15th 2024",
        "on 15 March 2024",
        "on the 15th of March 2024",
        "am 15. März 2024",
    ],
)
def test_it_finds_a_day(text: str) -> None:
    anchors = extract_anchors(text)

    assert [(anchor.value, anchor.precision) for anchor in anchors] == [(MARCH_15, "day")]


def test_it_prefers_us_order_for_slashes_and_european_for_dots() -> None:
    assert extract_dates("04/05/2024") == [date(2024, 4, 5)]
    assert extract_dates("04.05.2024") == [date(2024, 5, 4)]


def test_it_records_a_month_without_a_day_as_its_first_with_month_precision() -> None:
    anchors = extract_anchors("Rechnung für März 2024, paid in April 2024")

    assert [(anchor.value, anchor.precision) for anchor in anchors] == [
        (date(2024, 3, 1), "month"),
        (date(2024, 4, 1), "month"),
    ]


def test_it_takes_the_year_of_a_yearless_date_from_the_reference_only() -> None:
    assert extract_dates("bis 15. März erledigen") == []
    assert extract_dates("bis 15. März erledigen", reference=date(2025, 1, 2)) == [
        date(2025, 3, 15)
    ]


def test_it_puts_two_digit_years_near_the_reference() -> None:
    assert extract_dates("1.2.99") == [date(1999, 2, 1)]
    # The window is 80 years back and 20 ahead of the reference: 2070..2169, 2010..2109.
    assert extract_dates("1.2.99", reference=date(2150, 1, 1)) == [date(2099, 2, 1)]
    assert extract_dates("1.2.05", reference=date(2090, 1, 1)) == [date(2105, 2, 1)]
    assert extract_dates("1.2.30", reference=date(2025, 1, 1)) == [date(2030, 2, 1)]


@pytest.mark.parametrize(
    "text",
    [
        "version 1.2.3",
        "v2.10.15 released",
        "31.02.2024",
        "2024-13-01",
        "in 123/45/6789",
        "0001-01-01",
    ],
)
def test_it_ignores_what_is_no_date(text: str) -> None:
    assert extract_dates(text) == []


def test_it_keeps_order_and_drops_repeats() -> None:
    text = "2024-03-15, then 2024-01-02, again 15.03.2024"

    assert extract_dates(text) == [MARCH_15, date(2024, 1, 2)]
    assert len(extract_anchors(text)) == 3


def test_it_reports_spans() -> None:
    text = "Meeting am 15. März 2024 im Büro"
    (anchor,) = extract_anchors(text)

    assert text[anchor.span[0] : anchor.span[1]] == "15. März 2024"


def test_it_bounds_the_work_on_long_content() -> None:
    many = " ".join(f"2024-01-{day:02d}" for day in range(1, 29)) * 4
    late = "x" * MAX_SCAN_CHARS + " 2024-03-15"

    assert len(extract_anchors(many)) == MAX_ANCHORS
    assert extract_dates(late) == []


def test_it_gives_the_phase_of_a_moment_in_every_cycle() -> None:
    # Wednesday 2025-03-12 14:30: ISO week 11 (week 1 began Mon 2024-12-30), day 71 of the year.
    assert anchor_dimensions(datetime(2025, 3, 12, 14, 30)) == {
        "year": 2025.0,
        "month": 3.0,
        "quarter": 1.0,
        "week": 11.0,
        "weekday": 2.0,
        "monthday": 12.0,
        "seasonal": 71.0,
        "daily": 14.5,
    }
