"""Matchers for phases of cycles and their named occurrences: holidays, parts of the month,
parts of the day and the weekend (in priority order after `matchers_spans`)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

from retrieval.temporal.engine import Context, Hit, Scanner, is_dated, regex_scanner, rules
from retrieval.temporal.intent import DateRange
from retrieval.temporal.lexicon import (
    KEYWORDS,
    QUALIFIER_DE_RX,
    QUALIFIER_RX,
    TIMES_OF_DAY,
    WEEKDAY_RX,
    WEEKDAYS,
    qualifier_offset,
)
from retrieval.temporal.periods import (
    add_months,
    month_range,
    month_segment,
    pick_period,
    resolve_weekday,
    segment_target,
    week_start,
)
from retrieval.temporal.points import HOLIDAY_SOURCE, resolve_holiday, segment_of
from retrieval.temporal.weights import weights_for


def _build_holiday(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_holiday(match, ctx.today, ctx.tense)
    middle = rng.start.timetuple().tm_yday + (rng.days - 1) / 2
    profile = "holiday_dated" if is_dated(ctx, match["y"], match["q"]) else "holiday_bare"
    targets = {"seasonal": middle}
    return Hit("holiday", match.span(), weights_for(profile), (rng,), targets)


HOLIDAY: Final[Scanner] = regex_scanner(*rules(_build_holiday, HOLIDAY_SOURCE))

_MONTH_COMPOUNDS: Final = {
    "monatsanfang": "begin",
    "monatsbeginn": "begin",
    "monatsmitte": "mid",
    "monatsende": "end",
}


def _build_month_segment(match: re.Match[str], ctx: Context) -> Hit:
    segment = segment_of(match["seg"]) or _MONTH_COMPOUNDS[match["seg"]]
    offset = qualifier_offset(match.groupdict().get("q"))

    def step(months: int) -> DateRange:
        whole = month_range(*add_months(ctx.today.year, ctx.today.month, months))
        return month_segment(whole, segment)

    rng = pick_period(step, ctx.today, ctx.tense) if offset is None else step(offset)
    dated = is_dated(ctx, offset is not None)
    weights = weights_for("month_segment_dated" if dated else "month_segment_bare")
    targets = {"monthday": segment_target(segment, "monthday")}
    return Hit("month_segment", match.span(), weights, (rng,), targets)


MONTH_SEGMENT: Final[Scanner] = regex_scanner(
    *rules(
        _build_month_segment,
        r"\b(?:(?:am|zum|zu|gegen|um)\s+)?(?:(?P<q>" + QUALIFIER_DE_RX + r")\s+)?"
        r"(?P<seg>monatsanfang|monatsbeginn|monatsmitte|monatsende)\b",
        r"\b(?:(?:am|zum|zu|gegen)\s+)?(?P<seg>anfang|beginn|mitte|ende)\s+"
        r"(?:des\s+|dieses\s+)?monats\b",
        r"\b(?:(?:at|by|in|around|towards?)\s+)?(?:the\s+)?"
        r"(?P<seg>beginning|start|middle|end)\s+of\s+(?:the\s+)?month\b",
        r"\b(?P<seg>mid|early|late)[\s-]?month\b",
        r"\bmonth[\s-]?(?P<seg>end|start)\b",
    )
)

_DAY_OFFSETS: Final = {**KEYWORDS, "this": 0, "tonight": 0, "last": -1, "letzte": -1}


def _time_key(word: str) -> str:
    """Return the TIMES_OF_DAY key of a time word ("frühmorgens" -> "morgen")."""
    for prefix in ("früh", "spät"):
        if word.startswith(prefix) and len(word) > len(prefix):
            word = word[len(prefix) :]
    return word.removesuffix("s") if word not in TIMES_OF_DAY else word


def _build_weekday_time(match: re.Match[str], ctx: Context) -> Hit:
    """Return a hit for "Dienstagabend" (that evening) or "dienstagabends" (every one)."""
    weekday = WEEKDAYS[match["wd"]]
    targets = {"weekday": float(weekday), "daily": TIMES_OF_DAY[match["t"]]}
    if match["pl"]:
        weights = weights_for("weekday_recurrent", "time_of_day")
        return Hit("time_of_day", match.span(), weights, (), targets, recurrent=True, hint="none")
    day = DateRange.day(resolve_weekday(ctx.today, weekday, None, ctx.tense))
    weights = weights_for("weekday_point", "time_of_day_dated")
    return Hit("time_of_day", match.span(), weights, (day,), targets)


def _build_time_of_day(match: re.Match[str], ctx: Context) -> Hit:
    groups = match.groupdict()
    word = groups.get("t") or groups["adv"]
    targets = {"daily": TIMES_OF_DAY[_time_key(word)]}
    day = groups.get("day") or ("tonight" if word == "tonight" else None)
    if day is not None:
        rng = DateRange.day(ctx.today + timedelta(days=_DAY_OFFSETS[day]))
        weights = weights_for("time_of_day_dated")
        return Hit("time_of_day", match.span(), weights, (rng,), targets)
    recurrent = bool(groups.get("rec") or groups.get("adv") or groups.get("pl"))
    weights = weights_for("time_of_day")
    return Hit("time_of_day", match.span(), weights, (), targets, recurrent, hint="none")


_PARTS_DE: Final = r"morgen|vormittag|mittag|nachmittag|abend|nacht"
_PARTS_EN: Final = r"morning|afternoon|evening|night"

TIME_OF_DAY: Final[Scanner] = regex_scanner(
    *rules(
        _build_weekday_time,
        rf"\b(?:(?:am|jeden)\s+)?(?P<wd>{WEEKDAY_RX})(?P<t>{_PARTS_DE})(?P<pl>s)?\b",
    ),
    *rules(
        _build_time_of_day,
        r"\b(?P<day>heute|gestern|vorgestern|morgen|übermorgen)\s+"
        rf"(?P<t>früh|{_PARTS_DE})\b",
        r"\b(?P<day>letzte)\s+(?P<t>nacht)\b",
        r"\b(?:(?P<rec>jeden|jede)\s+|(?:am|zu|in\s+der|gegen|um|den\s+ganzen)\s+)"
        rf"(?P<t>{_PARTS_DE})\b",
        r"\b(?:(?P<rec>immer|meistens|oft|nur)\s+)?"
        r"(?P<adv>(?:früh)?morgens|vormittags|mittags|nachmittags|(?:spät)?abends|nachts)\b",
        rf"\b(?P<day>this|yesterday|tomorrow|today)\s+(?P<t>{_PARTS_EN})\b",
        r"\b(?P<day>last)\s+(?P<t>night)\b",
        r"\b(?P<t>tonight)\b",
        r"(?<!good\s)\b(?:(?P<rec>every|each)\s+|(?:in|during)\s+the\s+|at\s+)?"
        rf"(?P<t>{_PARTS_EN}|noon|midday)(?P<pl>s)?\b",
    ),
)

_RECURRING_WEEKEND: Final = frozenset({"every", "each", "jedes", "jeden", "jede"})


def _build_weekend(match: re.Match[str], ctx: Context) -> Hit:
    word, qualifier = match["w"], match["q"]
    targets = {"weekday": 5.5}
    if word.endswith(("s", "n")) or qualifier in _RECURRING_WEEKEND:
        weights = weights_for("weekend_recurrent")
        return Hit("weekend", match.span(), weights, (), targets, recurrent=True, hint="none")
    saturday = week_start(ctx.today) + timedelta(days=5)
    offset = qualifier_offset(qualifier)
    if offset is None:
        offset = -1 if ctx.tense == "past" and ctx.today < saturday else 0
    elif offset > 0 and ctx.today < saturday:
        offset -= 1  # "next weekend" on a weekday is the coming one
    rng = DateRange(saturday, saturday + timedelta(days=1)).shift(7 * offset)
    return Hit("weekend", match.span(), weights_for("weekend"), (rng,), targets)


WEEKEND: Final[Scanner] = regex_scanner(
    *rules(
        _build_weekend,
        r"\b(?:(?:am|an|übers|über\s+das|on|at|over|during|for)\s+)?(?:the\s+)?"
        rf"(?:(?P<q>{QUALIFIER_RX}|every|each|jedes|jeden|jede)\s+)?"
        r"(?P<w>wochenenden|wochenende|weekends|weekend|week-ends|week-end)\b",
    )
)
