"""dream.distinct: what tells two similar texts apart (pure, no database)."""

from __future__ import annotations

from datetime import date

import pytest

from dream.distinct import compare


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (
            "INV-2026-1005 from Tyrell Corp: 7904 EUR",
            "INV-2026-1007 from Tyrell Corp: 7904 EUR",
            "distinct",
        ),
        ("Invoice: amount 7904 EUR", "Invoice: amount 6488 EUR", "distinct"),
        ("Lunch with Alice at noon", "Lunch with Bob at noon", "distinct"),
        ("Deploy v2.1 to staging", "Deploy v2.2 to staging", "distinct"),
        ("Standup on 2026-02-10: all green", "Standup on 2026-03-03: all green", "recurrent"),
        ("Standup on March 3rd, 2026", "Standup on March 10th, 2026", "recurrent"),
        ("Standup am 3. März 2026", "Standup am 10. März 2026", "recurrent"),
        ("Use Compose v2.", "We use compose v2", "same"),
        ("The original note.", "The original note, again.", "same"),
    ],
)
def test_it_tells_records_series_and_copies_apart(first: str, second: str, expected: str) -> None:
    assert compare(first, second) == expected
    assert compare(second, first) == expected


def test_it_counts_the_blocks_own_validity_dates() -> None:
    text = "Weekly standup: the team synced on the release plan."
    assert compare(text, text, dates=((date(2026, 2, 10),), (date(2026, 3, 3),))) == "recurrent"
    assert compare(text, text, dates=((date(2026, 2, 10),), (date(2026, 2, 10),))) == "same"
