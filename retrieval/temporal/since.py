"""A moment a user names as the start of a listing: `ctx changes --since`, `ctx list --since`,
`ctx sessions list --since`. One reader, so each of them takes what the others take."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

from django.utils import timezone

from ctx import validation as v
from ctx.errors import ValidationFailed
from retrieval.temporal import parser as temporal

HINT = "an ISO date or time, or words like '2 hours ago', 'yesterday' or 'last week'"

# "2 hours ago", "an hour ago", "30 min ago", "2h", "vor 2 Stunden", "vor einer Minute": the
# temporal parser names days, and an hour ago is not the start of today.
_UNITS = {"s": 1, "sec": 1, "second": 1, "sekunde": 1, "m": 60, "min": 60, "minute": 60}
_UNITS |= {"h": 3600, "hr": 3600, "hour": 3600, "stunde": 3600}
_ONE = {"a", "an", "one", "ein", "eine", "einer"}
_AGO = re.compile(
    r"(?P<n>\d{1,6}|an?|one)\s*(?P<u>[a-z]+?)s?(?:\s+ago)?"
    r"|vor\s+(?P<dn>\d{1,6}|eine?r?)\s+(?P<du>[a-z]+?)n?",
    re.IGNORECASE,
)


def _clock_ago(text: str, now: datetime) -> datetime | None:
    match = _AGO.fullmatch(text.strip())
    if match is None:
        return None
    count, unit = (match["n"], match["u"]) if match["n"] else (match["dn"], match["du"])
    seconds = _UNITS.get(unit.lower())
    if seconds is None:
        return None
    n = 1 if count.lower() in _ONE else int(count)
    return now - timedelta(seconds=n * seconds)


def since_of(text: str, now: datetime, name: str = "since") -> datetime:
    """An ISO date or time, a clock time back ("2 hours ago", "30 min ago", "2h"), or words the
    temporal parser reads ("yesterday", "last week", "3 days ago"): the start of the first day
    they name. Anything else is a 400 naming the field."""
    try:
        parsed = v.timestamp({name: text}, name)
    except ValidationFailed:
        parsed = None
    if parsed is not None:
        return parsed
    back = _clock_ago(text, now)
    if back is not None:
        return back
    ranges = temporal.parse(text, timezone.localtime(now)).ranges
    if not ranges:
        raise ValidationFailed(f"'{name}' must be {HINT}.", details={"field": name})
    start = min(r.start for r in ranges)
    return datetime.combine(start, time.min, tzinfo=timezone.get_current_timezone())
