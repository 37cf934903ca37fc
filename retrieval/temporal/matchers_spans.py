"""Matchers for named spans, highest priority first: dates, weekday ranges, since/until,
week parts, relative weeks/months/years, and counted days ("vor 3 Tagen", "in 2 weeks")."""

from __future__ import annotations

import re
from datetime import date
from typing import Final

from retrieval.temporal.engine import Context, Hit, Scanner, regex_scanner, rules
from retrieval.temporal.intent import DateRange, Direction
from retrieval.temporal.lexicon import (
    NUMBER_RX,
    QUALIFIER_DE_RX,
    QUALIFIER_EN_RX,
    QUALIFIER_RX,
    UNITS,
    WEEKDAY_RX,
    WEEKDAYS,
    qualifier_offset,
)
from retrieval.temporal.periods import (
    pick_period,
    segment_target,
    shift,
    unit_range,
    week_range,
    week_segment,
    weekday_span,
)
from retrieval.temporal.points import (
    AMOUNT_SOURCE,
    DATE_SOURCE,
    RELATIVE_PERIOD_SOURCES,
    amount_of,
    date_of,
    date_source,
    parse_point,
    relative_period_parts,
    resolve_relative_period,
    segment_of,
)
from retrieval.temporal.weights import weights_for

# Open-ended "until X" with X in the past ("bis gestern") looks this many days back.
OPEN_SPAN_DAYS: Final = 30

_RANGE_SEPARATOR: Final = (
    r"\s*(?:\.\.\.?|\u2013|\u2014|-"
    r"|\bto\b|\bbis\b|\buntil\b|\btill\b|\bthrough\b|\band\b|\bund\b)\s*"
)


_NOT_AFTER_SINCE: Final = "".join(
    rf"(?<!{word}\s)" for word in ("seit", "since", "bis", "until", "till", "zum", "dem")
)


def _build_date_range(match: re.Match[str], ctx: Context) -> Hit:
    first, second = sorted((date_of(match, "a"), date_of(match, "b")))
    return Hit("iso_date", match.span(), weights_for("point"), (DateRange(first, second),))


def _build_date(match: re.Match[str], ctx: Context) -> Hit:
    day = DateRange.day(date_of(match))
    return Hit("iso_date", match.span(), weights_for("point"), (day,))


ISO_DATE: Final[Scanner] = regex_scanner(
    *rules(
        _build_date_range,
        rf"(?:\b(?:from|von|vom|between|zwischen)\s+)?{date_source('a')}{_RANGE_SEPARATOR}"
        rf"(?:zum\s+)?{date_source('b', guard=False)}",
    ),
    # A date right after "seit/since/bis/until" belongs to the since/until matcher.
    *rules(_build_date, rf"{_NOT_AFTER_SINCE}(?:\b(?:am|on|vom|dem)\s+)?{DATE_SOURCE}"),
)


def _build_weekday_range(match: re.Match[str], ctx: Context) -> Hit | None:
    if match["sep"] in ("and", "und") and match["pre"] not in ("between", "zwischen"):
        return None  # "Monday and Tuesday" is a list of two days, not a range
    first, last = WEEKDAYS[match["a"]], WEEKDAYS[match["b"]]
    offset = qualifier_offset(match["q"])
    span = weekday_span(ctx.today, first, last, offset, ctx.tense)
    return Hit("weekday_range", match.span(), weights_for("point"), (span,))


WEEKDAY_RANGE: Final[Scanner] = regex_scanner(
    *rules(
        _build_weekday_range,
        rf"\b(?:(?P<pre>von|vom|from|between|zwischen)\s+)?(?:(?P<q>{QUALIFIER_RX})\s+)?"
        rf"(?:(?:am|on|dem)\s+)?(?P<a>{WEEKDAY_RX})\s*"
        r"(?P<sep>-|\u2013|\bbis\b|\bto\b|\bthrough\b|\bthru\b|\btill\b|\buntil\b|\band\b|\bund\b)\s*"
        rf"(?:(?:zum|einschließlich|inclusive|including|am|on)\s+)?(?P<b>{WEEKDAY_RX})\b",
    )
)

_SINCE_UNTIL: Final = re.compile(
    r"\b(?P<op>seit|since|bis|until|till|til)\b\s*"
    r"(?:(?:dem|den|der|zum|zur|the|am|on|einschließlich|including)\s+)?"
)


def since_range(target: DateRange, today: date) -> DateRange:
    """Return "since X": from X's start to today (or X's end when X lies ahead)."""
    end = today if target.start <= today else target.end
    return DateRange(target.start, max(end, target.start))


def until_range(target: DateRange, today: date) -> DateRange:
    """Return "until X": from today to X's end, or a month up to X when X is over."""
    if target.end >= today:
        return DateRange(min(today, target.start), target.end)
    return DateRange(shift(target.end, -OPEN_SPAN_DAYS, "day"), target.end)


def _since_until_hit(match: re.Match[str], text: str, ctx: Context) -> Hit | None:
    backward = match["op"] in ("seit", "since")
    direction: Direction = "past" if backward else "future"
    if ctx.tense in ("past", "future"):
        direction = ctx.tense
    point = parse_point(text, match.end(), ctx.today, direction)
    if point is None:
        return None
    target, end = point
    if backward:
        rng = since_range(target, ctx.today)
        return Hit("since_until", (match.start(), end), weights_for("point"), (rng,), hint="past")
    hint: Direction = "future" if target.end >= ctx.today else "past"
    rng = until_range(target, ctx.today)
    return Hit("since_until", (match.start(), end), weights_for("point"), (rng,), hint=hint)


def _scan_since_until(text: str, ctx: Context) -> list[Hit]:
    hits: list[Hit] = []
    for match in _SINCE_UNTIL.finditer(text):
        if hits and match.start() < hits[-1].span[1]:
            continue
        hit = _since_until_hit(match, text, ctx)
        if hit is not None:
            hits.append(hit)
    return hits


SINCE_UNTIL: Final[Scanner] = _scan_since_until

_WEEK_COMPOUNDS: Final = {"wochenanfang": "begin", "wochenbeginn": "begin", "wochenmitte": "mid"}


def _build_week_segment(match: re.Match[str], ctx: Context) -> Hit | None:
    segment = segment_of(match["seg"]) or _WEEK_COMPOUNDS[match["seg"]]
    offset = qualifier_offset(match.groupdict().get("q"))
    if offset is None:
        rng = pick_period(
            lambda n: week_segment(week_range(ctx.today, n), segment), ctx.today, ctx.tense
        )
    else:
        rng = week_segment(week_range(ctx.today, offset), segment)
    targets = {"weekday": segment_target(segment, "weekday")}
    return Hit("week_segment", match.span(), weights_for("week_segment"), (rng,), targets)


WEEK_SEGMENT: Final[Scanner] = regex_scanner(
    *rules(
        _build_week_segment,
        r"\b(?:(?:am|zum|zu|gegen)\s+)?(?P<seg>anfang|beginn|mitte|ende)\s+"
        rf"(?:der\s+|(?P<q>{QUALIFIER_DE_RX})\s+)?woche\b",
        r"\b(?:(?:am|zum|zu|gegen)\s+)?(?:(?P<q>" + QUALIFIER_DE_RX + r")\s+)?"
        r"(?P<seg>wochenanfang|wochenbeginn|wochenmitte)\b",
        r"\b(?:(?:at|in|by|towards?|around)\s+)?(?:the\s+)?"
        r"(?P<seg>beginning|start|middle|end)\s+of\s+(?:the\s+)?"
        rf"(?:(?P<q>{QUALIFIER_EN_RX})\s+)?week\b",
        r"\b(?P<seg>early|mid|late|later)[\s-](?:in\s+)?(?:the\s+)?"
        rf"(?:(?P<q>{QUALIFIER_EN_RX})\s+)?week\b",
        r"\b(?P<seg>mid)week\b",
    )
)


def _build_relative_period(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_relative_period(match, ctx.today, ctx.tense)
    unit, _, segment = relative_period_parts(match)
    if segment is not None and unit == "week":
        targets = {"weekday": segment_target(segment, "weekday")}
        return Hit("week_segment", match.span(), weights_for("week_segment"), (rng,), targets)
    if segment is not None and unit == "month":
        targets = {"monthday": segment_target(segment, "monthday")}
        weights = weights_for("month_segment_dated")
        return Hit("month_segment", match.span(), weights, (rng,), targets)
    return Hit("relative_period", match.span(), weights_for("point"), (rng,))


RELATIVE_PERIOD: Final[Scanner] = regex_scanner(
    *rules(_build_relative_period, *RELATIVE_PERIOD_SOURCES)
)


def _build_ago(match: re.Match[str], ctx: Context) -> Hit:
    number, unit = amount_of(match)
    rng = unit_range(shift(ctx.today, -number, unit), unit)
    return Hit("relative_days", match.span(), weights_for("point"), (rng,), hint="past")


def _build_ahead(match: re.Match[str], ctx: Context) -> Hit:
    number, unit = amount_of(match)
    rng = unit_range(shift(ctx.today, number, unit), unit)
    return Hit("relative_days", match.span(), weights_for("point"), (rng,), hint="future")


def _build_window(match: re.Match[str], ctx: Context) -> Hit:
    number, unit = amount_of(match) if match["n"] else (3, UNITS[match["u"]])
    if (qualifier_offset(match["q"]) or 0) < 0:
        rng = DateRange(shift(ctx.today, -number, unit), ctx.today)
        return Hit("relative_days", match.span(), weights_for("point"), (rng,), hint="past")
    rng = DateRange(ctx.today, shift(ctx.today, number, unit))
    return Hit("relative_days", match.span(), weights_for("point"), (rng,), hint="future")


_PLURAL_UNITS: Final = r"days|weeks|months|years|tage|tagen|wochen|monate|monaten|jahre|jahren"

RELATIVE_DAYS: Final[Scanner] = regex_scanner(
    *rules(_build_ago, rf"\bvor\s+{AMOUNT_SOURCE}", rf"{AMOUNT_SOURCE}\s+ago\b"),
    *rules(_build_ahead, rf"\bin\s+{AMOUNT_SOURCE}"),
    *rules(
        _build_window,
        r"\b(?:(?:in|during|over|within|innerhalb|für|for)\s+)?(?:the\s+|den\s+|der\s+)?"
        r"(?P<q>last|past|previous|next|coming|letzten|vergangenen|vorigen|nächsten|naechsten"
        rf"|kommenden)\s+(?:(?P<n>{NUMBER_RX})\s+)?(?P<u>{_PLURAL_UNITS})\b",
    ),
)
