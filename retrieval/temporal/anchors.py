"""Dates mentioned in content ("anchors") and the cyclic phases of a moment.

`extract_anchors` keeps the precision of each date ("März 2024" is a month, stored as its
first day); `extract_dates` is the plain list of distinct dates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final, Literal

from retrieval.temporal.lexicon import ALL_MONTHS, alternation

Precision = Literal["day", "month"]

# Content is at most 50 KB; the scan and the result are bounded for anything longer.
MAX_SCAN_CHARS: Final = 65_536
MAX_ANCHORS: Final = 64
MIN_YEAR: Final = 1900
MAX_YEAR: Final = 2199


@dataclass(frozen=True, slots=True)
class DateAnchor:
    """A date found in text. `precision` "month" means only month and year were given."""

    value: date
    precision: Precision
    span: tuple[int, int]


_MONTH: Final = alternation(ALL_MONTHS)
_ORDINAL: Final = r"(?:\.|st|nd|rd|th)?"
_NUMERIC_FORMS: Final = (
    r"(?<![\w-])(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})"
    r"(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?(?!\d)"
    r"|(?<![\w.])(?P<dd>\d{1,2})\.(?P<dm>\d{1,2})\.(?P<dy>\d{4}|\d{2})(?!\d|\.\d)"
    r"|(?<![\w/])(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4}|\d{2})(?![\d/])"
)
_ANCHOR: Final = re.compile(
    _NUMERIC_FORMS + rf"|(?<![\d.])(?P<nd>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<nm>{_MONTH})\b\.?"
    r"(?:,?\s+(?P<ny>\d{4})\b)?"
    rf"|\b(?P<mm>{_MONTH})\b\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?\b(?![.:/]\d)"
    r"(?:,?\s+(?P<my>\d{4})\b)?"
    rf"|\b(?P<om>{_MONTH})\b\.?\s+(?P<oy>\d{{4}})\b",
    re.IGNORECASE,
)
# The same pattern without the forms that need a month name. Its matches are _ANCHOR's
# whenever no month name can match, and it scans several times faster: the three month
# alternations, tried at every word start, were most of a block's write-time anchoring.
_NUMERIC: Final = re.compile(_NUMERIC_FORMS, re.IGNORECASE)
_LETTERS: Final = re.compile(r"[a-z]+")
_MONTH_WORDS: Final = frozenset(ALL_MONTHS)


# A word character outside ASCII: every letter that case-insensitive matching pairs with an
# ASCII one (the Kelvin sign with "k"), and the German names' "ä", are such characters.
_NON_ASCII_WORD: Final = re.compile(r"(?![\x00-\x7f])\w")


def _pattern_for(text: str) -> re.Pattern[str]:
    """_NUMERIC when `text` has no month name, else _ANCHOR.

    Every month form bounds its name by non-word characters, so a name that can match is a
    whole run of letters. Text is checked this way when its only word characters are ASCII:
    a non-ASCII letter may pair with an ASCII one under IGNORECASE, which lower-casing does
    not, or belong to a German name. Other non-ASCII characters (an ellipsis, a dash, quotes:
    every transcript window's "[…]") are no letters, and take the fast path too.
    """
    plain = text.isascii() or _NON_ASCII_WORD.search(text) is None
    if plain and _MONTH_WORDS.isdisjoint(_LETTERS.findall(text.lower())):
        return _NUMERIC
    return _ANCHOR


def _full_year(text: str, reference: date | None) -> int:
    """Return a four-digit year; two digits go to the century that puts the year within
    80 years before and 20 after the reference (or after 2000 below 70 without one)."""
    year = int(text)
    if len(text) > 2:
        return year
    if reference is None:
        return 2000 + year if year < 70 else 1900 + year
    candidate = reference.year // 100 * 100 + year
    if candidate >= reference.year + 20:
        return candidate - 100
    return candidate + 100 if candidate < reference.year - 80 else candidate


def _make(year: int, month: int, day: int) -> date | None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _numeric(first: int, second: int, year: int, *, month_first: bool) -> date | None:
    """Return the date of an all-number form, trying the other order if the preferred fails."""
    preferred = (second, first) if month_first else (first, second)
    day, month = preferred
    return _make(year, month, day) or _make(year, day, month)


# Letters the month alternation matches under IGNORECASE that lower-casing leaves alone: a
# month written with the long s (U+017F) matched, and its lookup raised a KeyError in the block
# write.
_TWIN_LETTERS: Final = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i"})


def _month_of(name: str) -> int:
    return ALL_MONTHS[name.translate(_TWIN_LETTERS).lower().rstrip(".")]


def _named(
    match: dict[str, str | None],
    day_group: str,
    month_group: str,
    year_group: str,
    reference: date | None,
) -> date | None:
    year_text = match[year_group]
    if year_text is None and reference is None:
        return None  # "15. März" without a year and nothing to take one from
    year = int(year_text) if year_text else reference.year if reference else 0
    return _make(year, _month_of(str(match[month_group])), int(str(match[day_group])))


def _anchor(found: re.Match[str], reference: date | None) -> tuple[date | None, Precision]:
    # A dict with every group of _ANCHOR: a _NUMERIC match lacks the month forms' groups.
    match: dict[str, Any] = dict.fromkeys(_ANCHOR.groupindex) | found.groupdict()
    if match["iy"]:
        return _make(int(match["iy"]), int(match["im"]), int(match["id"])), "day"
    if match["dd"]:
        year = _full_year(match["dy"], reference)
        return _numeric(int(match["dd"]), int(match["dm"]), year, month_first=False), "day"
    if match["sa"]:
        year = _full_year(match["sy"], reference)
        return _numeric(int(match["sa"]), int(match["sb"]), year, month_first=True), "day"
    if match["nd"]:
        return _named(match, "nd", "nm", "ny", reference), "day"
    if match["mm"]:
        return _named(match, "md", "mm", "my", reference), "day"
    return _make(int(match["oy"]), _month_of(match["om"]), 1), "month"


_DIGIT_RUN: Final = re.compile(r"\d+")


def _numeric_matches(text: str, end: int) -> Iterator[re.Match[str]]:
    """`_NUMERIC.finditer(text, 0, end)`, tried only where a run of digits starts.

    Each numeric form opens with a digit that no word character precedes (its lookbehind), so
    a match starts where a run of digits does, and finditer's next match starts after the
    last one's end. Scanning every position with three lookbehinds cost 0.21 ms of a 5 KB
    transcript window, on every window an import writes; the runs cost 0.05 ms.
    """
    after = 0
    for run in _DIGIT_RUN.finditer(text, 0, end):
        if run.start() >= after and (found := _NUMERIC.match(text, run.start(), end)):
            after = found.end()
            yield found


def _matches(text: str) -> Iterator[re.Match[str]]:
    pattern = _pattern_for(text)
    if pattern is _NUMERIC:
        return _numeric_matches(text, MAX_SCAN_CHARS)
    return pattern.finditer(text, 0, MAX_SCAN_CHARS)


def extract_anchors(
    text: str, *, reference: date | None = None, limit: int = MAX_ANCHORS
) -> list[DateAnchor]:
    """Return the dates in `text` in order of appearance, at most `limit`.

    Dotted dates are read day first (15.03.2024), slashed ones month first (03/15/2024),
    each falling back to the other order when the preferred one is no date. A day and month
    without a year ("15. März") counts only with a `reference` date to take the year from.
    """
    anchors: list[DateAnchor] = []
    for match in _matches(text):
        value, precision = _anchor(match, reference)
        if value is not None:
            anchors.append(DateAnchor(value, precision, match.span()))
            if len(anchors) >= limit:
                break
    return anchors


def extract_dates(text: str, *, reference: date | None = None) -> list[date]:
    """Return the distinct dates in `text` in order of first appearance (month-only ones as
    the 1st of the month; use `extract_anchors` to tell them apart)."""
    return list(
        dict.fromkeys(anchor.value for anchor in extract_anchors(text, reference=reference))
    )


def anchor_dimensions(moment: datetime) -> dict[str, float]:
    """Return the phase of `moment` in every cycle gravity uses, plus its year.

    weekday 0..6 (Monday 0), month 1..12, quarter 1..4, week ISO 1..53, monthday 1..31,
    seasonal day of year 1..366, daily hour 0..24 with minutes as a fraction.
    """
    return {
        "year": float(moment.year),
        "month": float(moment.month),
        "quarter": float((moment.month - 1) // 3 + 1),
        "week": float(moment.isocalendar().week),
        "weekday": float(moment.weekday()),
        "monthday": float(moment.day),
        "seasonal": float(moment.timetuple().tm_yday),
        "daily": moment.hour + moment.minute / 60 + moment.second / 3600,
    }
