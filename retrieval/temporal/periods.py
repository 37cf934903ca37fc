"""Calendar arithmetic: weeks, months, quarters, holidays and picking which one a phrase means."""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, timedelta

from retrieval.temporal.intent import DateRange, Direction

ONE_DAY = timedelta(days=1)


def easter(year: int) -> date:
    """Return Easter Sunday by the anonymous Gregorian algorithm (Meeus/Jones/Butcher)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _easter_offset(first: int, last: int) -> Callable[[int], DateRange]:
    def build(year: int) -> DateRange:
        sunday = easter(year)
        return DateRange(sunday + timedelta(days=first), sunday + timedelta(days=last))

    return build


def _fixed(month: int, first: int, last: int) -> Callable[[int], DateRange]:
    return lambda year: DateRange(date(year, month, first), date(year, month, last))


# "Easter"/"Ostern" means the long weekend, Good Friday to Easter Monday.
_HOLIDAYS: dict[str, Callable[[int], DateRange]] = {
    "christmas": _fixed(12, 24, 26),
    "christmas_eve": _fixed(12, 24, 24),
    "christmas_day": _fixed(12, 25, 25),
    "new_years_eve": _fixed(12, 31, 31),
    "new_year": _fixed(1, 1, 1),
    "easter": _easter_offset(-2, 1),
    "easter_sunday": _easter_offset(0, 0),
    "good_friday": _easter_offset(-2, -2),
    "easter_monday": _easter_offset(1, 1),
    "ascension": _easter_offset(39, 39),
    "pentecost": _easter_offset(49, 50),
    "whit_monday": _easter_offset(50, 50),
}


def holiday_range(key: str, year: int) -> DateRange:
    return _HOLIDAYS[key](year)


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def week_range(day: date, offset: int = 0) -> DateRange:
    """Return the ISO week (Monday..Sunday) `offset` weeks from the one holding `day`."""
    monday = week_start(day) + timedelta(weeks=offset)
    return DateRange(monday, monday + timedelta(days=6))


def add_months(year: int, month: int, offset: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + offset
    return index // 12, index % 12 + 1


def month_range(year: int, month: int) -> DateRange:
    last = calendar.monthrange(year, month)[1]
    return DateRange(date(year, month, 1), date(year, month, last))


def quarter_range(year: int, quarter: int) -> DateRange:
    first = month_range(year, quarter * 3 - 2)
    last = month_range(year, quarter * 3)
    return DateRange(first.start, last.end)


def year_range(year: int) -> DateRange:
    return DateRange(date(year, 1, 1), date(year, 12, 31))


def shift(day: date, amount: int, unit: str) -> date:
    """Return `day` moved by `amount` days, weeks, months or years (clamping the day)."""
    if unit == "day":
        return day + timedelta(days=amount)
    if unit == "week":
        return day + timedelta(weeks=amount)
    months = amount * 12 if unit == "year" else amount
    year, month = add_months(day.year, day.month, months)
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def unit_range(day: date, unit: str) -> DateRange:
    """Return the day, ISO week, month or year that holds `day`."""
    if unit == "week":
        return week_range(day)
    if unit == "month":
        return month_range(day.year, day.month)
    if unit == "year":
        return year_range(day.year)
    return DateRange.day(day)


def period_range(today: date, unit: str, offset: int) -> DateRange:
    """Return the week, month, quarter or year `offset` periods from the one holding today."""
    if unit == "week":
        return week_range(today, offset)
    if unit == "month":
        return month_range(*add_months(today.year, today.month, offset))
    if unit == "quarter":
        year, month = add_months(today.year, today.month, offset * 3)
        return quarter_range(year, (month - 1) // 3 + 1)
    return year_range(today.year + offset)


# Segments of a month by thirds ("Anfang/Mitte/Ende", "Dekaden"), of a work week, and of a year.
_MONTH_THIRDS = {"begin": (1, 10), "mid": (11, 20), "end": (21, 31)}
_WEEK_PARTS = {"begin": (0, 1), "mid": (1, 3), "end": (3, 4)}
_YEAR_PARTS = {"begin": (1, 3), "mid": (4, 9), "end": (10, 12)}


def month_segment(month: DateRange, segment: str) -> DateRange:
    first, last = _MONTH_THIRDS[segment]
    return DateRange(_clamp_day(month, first), _clamp_day(month, last))


def _clamp_day(month: DateRange, day: int) -> date:
    return month.start.replace(day=min(day, month.end.day))


def week_segment(week: DateRange, segment: str) -> DateRange:
    first, last = _WEEK_PARTS[segment]
    return DateRange(week.start + timedelta(days=first), week.start + timedelta(days=last))


def year_segment(year: DateRange, segment: str) -> DateRange:
    first, last = _YEAR_PARTS[segment]
    return DateRange(date(year.start.year, first, 1), month_range(year.start.year, last).end)


def segment_target(segment: str, kind: str) -> float:
    """Return the cyclic phase a segment is centred on: a weekday or a day of the month."""
    first, last = (_WEEK_PARTS if kind == "weekday" else _MONTH_THIRDS)[segment]
    if kind == "monthday" and segment == "end":
        last = 30
    return (first + last) / 2


def weekday_before(today: date, weekday: int) -> date:
    """Return the latest `weekday` strictly before today."""
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def weekday_after(today: date, weekday: int) -> date:
    """Return the earliest `weekday` strictly after today."""
    return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


def weekday_this_week(today: date, weekday: int) -> date:
    return week_start(today) + timedelta(days=weekday)


def resolve_weekday(today: date, weekday: int, offset: int | None, direction: Direction) -> date:
    """Return the date a weekday phrase means, by its qualifier or else by the tense.

    Past or no tense: the latest one strictly before today. Present: this week's. Future: the
    next one strictly after today. "last"/"next" act like past/future; "vorletzten" and
    "übernächsten" move a further week.
    """
    if offset is None:
        offset = {"future": 1, "present": 0}.get(direction, -1)
    if offset < 0:
        return weekday_before(today, weekday) + timedelta(weeks=offset + 1)
    if offset > 0:
        return weekday_after(today, weekday) + timedelta(weeks=offset - 1)
    return weekday_this_week(today, weekday)


def pick_yearly(build: Callable[[int], DateRange], today: date, direction: Direction) -> DateRange:
    """Return the occurrence of a yearly period (a month, a holiday) the tense points at.

    Past: the latest that has started by today. Future: the earliest that has not ended.
    Otherwise the one holding today or else the nearest, the past one on a tie.
    """
    candidates = [build(today.year + step) for step in (-1, 0, 1)]
    if direction == "past":
        return [rng for rng in candidates if rng.start <= today][-1]
    if direction == "future":
        return next(rng for rng in candidates if rng.end >= today)
    return min(candidates, key=lambda rng: rng.distance(today))


def pick_yearly_offset(build: Callable[[int], DateRange], today: date, offset: int) -> DateRange:
    """Return the occurrence for "last X" (ended before today), "this X", "next X" (after)."""
    if offset == 0:
        return build(today.year)
    candidates = [build(today.year + step) for step in range(-3, 4)]
    if offset < 0:
        return [rng for rng in candidates if rng.end < today][offset]
    return [rng for rng in candidates if rng.start > today][offset - 1]


def pick_period(step: Callable[[int], DateRange], today: date, direction: Direction) -> DateRange:
    """Return `step(0)` (the current week's or month's part) unless the tense rules it out.

    A past question about a part still to come takes the previous one, a future question
    about a part already over takes the next one.
    """
    current = step(0)
    if direction == "past" and current.start > today:
        return step(-1)
    if direction == "future" and current.end < today:
        return step(1)
    return current


def weekday_span(
    today: date, first: int, last: int, offset: int | None, direction: Direction
) -> DateRange:
    """Return the days from weekday `first` to weekday `last` that a phrase means.

    "last Monday to Wednesday" is the latest such span that ended before today; "next ..."
    the first that starts after today; "this ..." or no tense the one in the current week;
    past or future tense the latest span starting before today or the first after it.
    """
    length = timedelta(days=(last - first) % 7)
    if offset is not None and offset < 0:
        end = weekday_before(today, last) + timedelta(weeks=offset + 1)
        return DateRange(end - length, end)
    if offset is None and direction == "past":
        start = weekday_before(today, first)
    elif offset is None and direction == "future":
        start = weekday_after(today, first)
    elif offset is not None and offset > 0:
        start = weekday_after(today, first) + timedelta(weeks=offset - 1)
    else:
        start = weekday_this_week(today, first)
    return DateRange(start, start + length)
