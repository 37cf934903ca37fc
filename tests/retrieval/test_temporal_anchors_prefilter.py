"""Text without a month name is scanned with the numeric forms only: the anchors found are
exactly those of the full pattern (literal cases and generated text)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.temporal import anchors
from retrieval.temporal.anchors import DateAnchor, extract_anchors
from retrieval.temporal.lexicon import ALL_MONTHS

REFERENCE = date(2025, 3, 12)


def _full(text: str, monkeypatch: pytest.MonkeyPatch) -> list[DateAnchor]:
    with monkeypatch.context() as patch:
        patch.setattr(anchors, "_pattern_for", lambda _text: anchors._ANCHOR)
        return extract_anchors(text, reference=REFERENCE)


CASES = [
    "Release 1.2.3 on 2024-03-01, ticket #12345.",
    "Am 15.03.2024 und am 03/15/2024 um 10:00",
    "On the 3rd of May 2024 we met; May 5 was busy; mayor 2024; decade 12",
    "2024March 5 is not a date but March 5, 2024 is",
    "Ende März 2025 und im Jänner 2026",
    "DEC 24 and dec. 2023, Sept 3rd",
    "note 17 > Deploy 0: deploy the server 12 times",
    "\u212a 2024 and Octo\u212aer 3",  # Kelvin sign
    "\u2026 Octo\u212aer 3 \u2014 on 2024-03-01 [\u2026]",  # the Kelvin sign beside an ellipsis
    "caf\u00e9 \u2026 on May 3, 2024 \u2014 12.03.2024",
    "\u2026 \u017fept 3, 2024 and \u0131 2024",
    "[2026-03-01 10:00] user: deploy 12 servers [\u2026]",
    "",
]


@pytest.mark.parametrize("text", CASES)
def test_it_finds_what_the_full_pattern_finds(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert extract_anchors(text, reference=REFERENCE) == _full(text, monkeypatch)


def test_it_skips_the_month_forms_only_without_a_month_name() -> None:
    assert anchors._pattern_for("deploy 12 servers on 2024-03-01") is anchors._NUMERIC
    assert anchors._pattern_for("deploy on May 3") is anchors._ANCHOR
    assert anchors._pattern_for("deploy am 3. März") is anchors._ANCHOR  # not ASCII
    # Non-ASCII characters that are no letters (a transcript window's "[…]") keep it fast.
    assert anchors._pattern_for("deploy 12 servers \u2014 done [\u2026]") is anchors._NUMERIC
    assert anchors._pattern_for("deploy on May 3 [\u2026]") is anchors._ANCHOR
    assert anchors._pattern_for("caf\u00e9 at 10:00 [\u2026]") is anchors._ANCHOR  # a letter


FRAGMENTS = st.sampled_from(
    [
        *ALL_MONTHS,
        *(m.upper() for m in ALL_MONTHS),
        *(m.title() + "." for m in ALL_MONTHS),
        "mayor",
        "decade",
        "2024",
        "15",
        "3rd",
        "of",
        "12/03/25",
        "01.02.2023",
        "2024-02-29",
        " ",
        ", ",
        ".",
        "-",
        "\n",
        "\u212a",
        "\u017f",
        "\u0131",
        "\u00e4",
        "\u2026",
        "\u2014",
        "a",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=10).map("".join))
def test_it_agrees_with_the_full_pattern_on_generated_text(text: str) -> None:
    full = [
        a
        for a in (anchors._anchor(m, REFERENCE) for m in anchors._ANCHOR.finditer(text))
        if a[0] is not None
    ]
    found = [(a.value, a.precision) for a in extract_anchors(text, reference=REFERENCE)]
    assert found == full[: anchors.MAX_ANCHORS]


NUMERIC_FRAGMENTS = st.sampled_from(
    [
        *("2024-02-29", "2024-02-29T10:00:00Z", "2026-03-01 10:05", "01.02.2023", "1.2.3.4"),
        *("12/03/25", "3/4/2020", "12", "2024", "0", "-", ".", "/", " ", "\n", ":", "T", "a"),
        *("_", "x", "\u0663", "\u00e9", "\u2026", "[", "]"),  # an Arabic-Indic digit: \d too
        "10:00:00.12",  # a run inside a match that would start a dotted date of its own
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(NUMERIC_FRAGMENTS, max_size=14).map("".join), st.integers(0, 80))
def test_it_finds_the_numeric_forms_where_digit_runs_start(text: str, end: int) -> None:
    def found(matches: object) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
        return [(m.span(), m.groupdict()) for m in matches]  # type: ignore[attr-defined]

    expected = found(anchors._NUMERIC.finditer(text, 0, end))
    assert found(anchors._numeric_matches(text, end)) == expected


def test_it_goes_on_after_a_match_as_finditer_does() -> None:
    # "00.12.2024" is a dotted date, but inside the ISO time before it: finditer goes on
    # after "…00.12", and so must the scan by digit runs.
    text = "2026-03-01 10:00:00.12.2024"
    assert [m.span() for m in anchors._numeric_matches(text, 100)] == [(0, 22)]
