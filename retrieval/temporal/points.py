"""Phrases that name one period, shared by the matchers and by "seit/since X", "bis/until X".

Each phrase has a pattern and a resolver `(match, today, direction) -> DateRange`, where the
direction says which occurrence a phrase without a year means.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Final

from retrieval.temporal.intent import DateRange, Direction
from retrieval.temporal.lexicon import (
    ALL_MONTHS,
    HOLIDAY_RX,
    HOLIDAYS,
    KEYWORD_RX,
    KEYWORDS,
    MONTH_RX,
    NUMBER_RX,
    NUMBERS,
    QUALIFIER_DE_RX,
    QUALIFIER_EN_RX,
    QUALIFIER_RX,
    SEGMENTS,
    UNIT_RX,
    UNITS,
    WEEKDAY_RX,
    WEEKDAYS,
    qualifier_offset,
    squash,
)
from retrieval.temporal.periods import (
    ONE_DAY,
    holiday_range,
    month_range,
    month_segment,
    period_range,
    pick_yearly,
    pick_yearly_offset,
    quarter_range,
    resolve_weekday,
    shift,
    week_segment,
    year_range,
    year_segment,
)

Resolver = Callable[[re.Match[str], date, Direction], DateRange]

YEAR_RX: Final = r"(?:19|20)\d{2}"


def date_source(prefix: str = "", *, guard: bool = True) -> str:
    """Return a pattern for an ISO ("2025-03-14[T10:00]") or dotted ("14.03.2025") date.

    `guard` refuses a date glued to a word, dot or dash before it (version numbers).
    """
    p = prefix
    return (
        (r"(?<![\w.-])" if guard else "")
        + rf"(?:(?P<{p}y>\d{{4}})-(?P<{p}m>\d{{1,2}})-(?P<{p}d>\d{{1,2}})"
        rf"(?:t\d{{1,2}}:\d{{2}}(?::\d{{2}})?)?"
        rf"|(?P<{p}ed>\d{{1,2}})\.(?P<{p}em>\d{{1,2}})\.(?P<{p}ey>\d{{4}}|\d{{2}}))(?![\w-]|\.\d)"
    )


def date_of(match: re.Match[str], prefix: str = "") -> date:
    """Return the date a `date_source` match names; two-digit years are 20xx."""
    if match[f"{prefix}y"]:
        return date(int(match[f"{prefix}y"]), int(match[f"{prefix}m"]), int(match[f"{prefix}d"]))
    year = int(match[f"{prefix}ey"])
    year = year + 2000 if year < 100 else year
    return date(year, int(match[f"{prefix}em"]), int(match[f"{prefix}ed"]))


def segment_of(phrase: str | None) -> str | None:
    """Return begin/mid/end for a segment phrase ("the end of", "Anfang", "mid-")."""
    if not phrase:
        return None
    for word in phrase.replace("-", " ").split():
        if word in SEGMENTS:
            return SEGMENTS[word]
    return None


DATE_SOURCE: Final = date_source()

MONTH_SOURCE: Final = (
    r"\b(?:(?P<prep>in|im|during|of|for|für|am|on|the|vom|from|by|zum)\s+)?"
    r"(?:(?P<seg>anfang|beginn|mitte|ende|early|mid|late"
    r"|(?:the\s+)?(?:beginning|start|middle|end)\s+of)(?:\s+|-))?"
    rf"(?:(?P<q>{QUALIFIER_RX})\s+)?"
    r"(?:(?:the\s+)?(?<![\d.])(?P<d1>\d{1,2})(?:\.|st|nd|rd|th)?\s+(?:of\s+)?)?"
    rf"(?P<m>{MONTH_RX})\b\.?"
    r"(?:\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\b(?![.:]\d))?"
    rf"(?:,?\s+(?P<y>{YEAR_RX})\b)?"
)


def resolve_month(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    """Return a month phrase's range: the day if one is given, else the month or its part."""
    month = ALL_MONTHS[match["m"]]
    day = match["d1"] or match["d2"]
    segment = segment_of(match["seg"])

    def build(year: int) -> DateRange:
        if day:
            return DateRange.day(date(year, month, int(day)))
        whole = month_range(year, month)
        return month_segment(whole, segment) if segment else whole

    if match["y"]:
        return build(int(match["y"]))
    offset = qualifier_offset(match["q"])
    if offset is not None:
        return pick_yearly_offset(build, today, offset)
    return pick_yearly(build, today, direction)


_QUARTER_WORDS: Final = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_WORDS_DE: Final = {"erste": 1, "zweite": 2, "dritte": 3, "vierte": 4}

QUARTER_SOURCES: Final = (
    r"\b(?:(?:in|im|during|for|für)\s+)?(?:the\s+|das\s+|dem\s+)?"
    r"(?:q(?P<q>[1-4])|(?P<qn>[1-4])\.\s*quartal"
    r"|(?P<qw>first|second|third|fourth|(?:erste|zweite|dritte|vierte)[nsm]?)\s+(?:quarter|quartal))"
    rf"(?:[\s/-]*(?:of\s+|des\s+jahres\s+)?(?P<y>{YEAR_RX}))?\b",
    rf"\b(?P<y>{YEAR_RX})[\s/-]?q(?P<q>[1-4])\b",
)


def quarter_of(match: re.Match[str]) -> int:
    groups = match.groupdict()
    if groups.get("q"):
        return int(match["q"])
    if groups.get("qn"):
        return int(match["qn"])
    word = match["qw"]
    return _QUARTER_WORDS.get(word) or _QUARTER_WORDS_DE[word.rstrip("nsm")]


def resolve_quarter(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    quarter = quarter_of(match)
    if match["y"]:
        return quarter_range(int(match["y"]), quarter)
    return pick_yearly(lambda year: quarter_range(year, quarter), today, direction)


_UNIT_NAMES: Final = {
    "woche": "week",
    "kalenderwoche": "week",
    "monat": "month",
    "monats": "month",
    "jahr": "year",
    "jahrs": "year",
    "jahres": "year",
    "quartal": "quarter",
    "quartals": "quarter",
}

RELATIVE_PERIOD_SOURCES: Final = (
    r"\b(?:(?:in\s+der|im|in|am|vom|seit\s+der|seit\s+dem)\s+)?"
    r"(?:(?P<seg>anfang|beginn|mitte|ende)\s+(?:des\s+|der\s+)?)?"
    rf"(?P<q>{QUALIFIER_DE_RX})\s+(?P<u>kalenderwoche|woche|monats?|jahres|jahrs?|quartals?)\b",
    r"\b(?:(?:in|during|over|for|since)\s+)?"
    r"(?:(?:the\s+)?(?P<seg>beginning|start|middle|end)\s+of\s+)?(?:the\s+)?"
    rf"(?P<q>{QUALIFIER_EN_RX})\s+(?P<u>week|month|year|quarter)\b",
    rf"\b(?P<seg>early|mid|late)[\s-](?P<q>{QUALIFIER_EN_RX})\s+(?P<u>week|month|year|quarter)\b",
    r"\b(?:(?:in|during)\s+)?the\s+(?P<u>week|month|year)\s+(?P<rel>before\s+last|after\s+next)\b",
)


def relative_period_parts(match: re.Match[str]) -> tuple[str, int, str | None]:
    """Return (unit, offset, segment) of a relative period phrase."""
    groups = match.groupdict()
    unit = _UNIT_NAMES.get(match["u"], match["u"])
    if groups.get("rel"):
        offset = -2 if match["rel"].startswith("before") else 2
    else:
        offset = qualifier_offset(match["q"]) or 0
    return unit, offset, segment_of(groups.get("seg"))


def resolve_relative_period(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    unit, offset, segment = relative_period_parts(match)
    period = period_range(today, unit, offset)
    if segment is None or unit == "quarter":
        return period
    if unit == "week":
        return week_segment(period, segment)
    if unit == "month":
        return month_segment(period, segment)
    return year_segment(period, segment)


AMOUNT_SOURCE: Final = rf"\b(?P<n>{NUMBER_RX})\s+(?P<u>{UNIT_RX})\b"


def amount_of(match: re.Match[str]) -> tuple[int, str]:
    """Return (count, unit) of "3 Tagen", "two weeks", "einer Woche"."""
    count = match["n"]
    number = int(count) if count.isdigit() else NUMBERS[squash(count)]
    return number, UNITS[match["u"]]


def resolve_amount_back(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    """Return the day "N units" before today ("seit 3 Tagen")."""
    number, unit = amount_of(match)
    return DateRange.day(shift(today, -number, unit))


HOLIDAY_SOURCE: Final = (
    r"\b(?:(?P<prep>over|at|on|around|during|for|über|an|zu|am|um)\s+)?"
    rf"(?:(?P<q>{QUALIFIER_RX})\s+)?(?P<h>{HOLIDAY_RX})\b(?!\s+eggs?\b)"
    rf"(?:\s+(?P<y>{YEAR_RX})\b)?"
)


def resolve_holiday(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    key = HOLIDAYS[squash(match["h"])]

    def build(year: int) -> DateRange:
        return holiday_range(key, year)

    if match["y"]:
        return build(int(match["y"]))
    offset = qualifier_offset(match["q"])
    if offset is not None:
        return pick_yearly_offset(build, today, offset)
    return pick_yearly(build, today, direction)


WEEKDAY_SOURCE: Final = rf"\b(?:(?P<q>{QUALIFIER_RX})\s+)?(?:(?:am|on)\s+)?(?P<wd>{WEEKDAY_RX})\b"


def resolve_weekday_phrase(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    weekday = WEEKDAYS[match["wd"]]
    return DateRange.day(resolve_weekday(today, weekday, qualifier_offset(match["q"]), direction))


# "Guten Morgen" is a greeting, not tomorrow.
KEYWORD_SOURCE: Final = rf"(?<!guten\s)\b(?P<k>{KEYWORD_RX})\b"


def resolve_keyword(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    return DateRange.day(today + KEYWORDS[squash(match["k"])] * ONE_DAY)


YEAR_SOURCE: Final = rf"\b(?P<y>{YEAR_RX})\b(?![-/.]\d)"


def resolve_year(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    return year_range(int(match["y"]))


def resolve_date(match: re.Match[str], today: date, direction: Direction) -> DateRange:
    return DateRange.day(date_of(match))


# Tried in this order after "seit/since/bis/until".
POINTS: Final[tuple[tuple[re.Pattern[str], Resolver], ...]] = (
    (re.compile(DATE_SOURCE), resolve_date),
    (re.compile(MONTH_SOURCE), resolve_month),
    *((re.compile(source), resolve_quarter) for source in QUARTER_SOURCES),
    *((re.compile(source), resolve_relative_period) for source in RELATIVE_PERIOD_SOURCES),
    (re.compile(AMOUNT_SOURCE), resolve_amount_back),
    (re.compile(HOLIDAY_SOURCE), resolve_holiday),
    (re.compile(WEEKDAY_SOURCE), resolve_weekday_phrase),
    (re.compile(KEYWORD_SOURCE), resolve_keyword),
    (re.compile(YEAR_SOURCE), resolve_year),
)


def parse_point(
    text: str, pos: int, today: date, direction: Direction
) -> tuple[DateRange, int] | None:
    """Return (range, end of phrase) of the period named at `pos`, or None."""
    for pattern, resolve in POINTS:
        match = pattern.match(text, pos)
        if match is None:
            continue
        try:
            return resolve(match, today, direction), match.end()
        except (ValueError, OverflowError):
            return None
    return None
