"""Dates an evidence span mentions (memory/extract/dates.py)."""

from __future__ import annotations

from datetime import date

from memory.extract.dates import mentioned_dates

TUESDAY = date(2024, 5, 14)


def test_it_resolves_relative_days_against_the_message_date() -> None:
    found = mentioned_dates("yesterday, last Sunday and next Friday", TUESDAY)
    assert found == (date(2024, 5, 13), date(2024, 5, 12), date(2024, 5, 17))


def test_it_resolves_counted_spans_ago() -> None:
    assert mentioned_dates("three weeks ago", TUESDAY) == (date(2024, 4, 23),)
    assert mentioned_dates("2 days ago", TUESDAY) == (date(2024, 5, 12),)


def test_it_reads_absolute_dates_in_order() -> None:
    found = mentioned_dates("from 2024-03-01 to March 15, 2024", TUESDAY)
    assert found == (date(2024, 3, 1), date(2024, 3, 15))


def test_it_needs_a_reference_for_relative_words() -> None:
    assert mentioned_dates("yesterday", None) == ()
