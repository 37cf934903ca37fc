"""The dates an evidence span mentions, resolved against the message's timestamp.

Absolute dates come from `retrieval.temporal.extract_anchors` (pure, no Django); the small
set of relative words people use about their own past and plans ("yesterday", "last
Sunday", "three weeks ago", "next month") is resolved here.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Final

from memory.extract.lexicon import NUMBER_WORDS, WEEKDAYS
from retrieval.temporal import extract_anchors

_RELATIVE: Final = re.compile(
    r"\b(?:(?P<simple>today|tonight|yesterday|tomorrow|day before yesterday)"
    r"|(?P<dir>last|next|this|on)\s+(?P<weekday>" + "|".join(WEEKDAYS) + r")"
    r"|(?P<dir2>last|next|this)\s+(?P<unit>week|weekend|month|year)"
    r"|(?P<n>\d{1,3}|" + "|".join(NUMBER_WORDS) + r"|a|an|a couple of|a few)\s+"
    r"(?P<unit2>day|week|month|year)s?\s+(?P<dir3>ago|from now))\b",
    re.IGNORECASE,
)
_FEW: Final = {"a": 1, "an": 1, "a couple of": 2, "a few": 3}
_UNIT_DAYS: Final = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}


def mentioned_dates(text: str, reference: date | None) -> tuple[date, ...]:
    """The distinct dates `text` mentions, in order; relative ones need `reference`."""
    found: list[tuple[int, date]] = [
        (a.span[0], a.value) for a in extract_anchors(text, reference=reference, limit=8)
    ]
    if reference is not None:
        for match in _RELATIVE.finditer(text):
            resolved = _resolve(match, reference)
            if resolved is not None:
                found.append((match.start(), resolved))
    found.sort()
    return tuple(dict.fromkeys(value for _, value in found))


def _resolve(match: re.Match[str], reference: date) -> date | None:
    simple = (match["simple"] or "").casefold()
    if simple:
        offsets = {"yesterday": -1, "tomorrow": 1, "day before yesterday": -2}
        return reference + timedelta(days=offsets.get(simple, 0))
    if match["weekday"]:
        return _weekday(reference, match["weekday"].casefold(), match["dir"].casefold())
    if match["unit"]:
        sign = {"last": -1, "next": 1}.get(match["dir2"].casefold(), 0)
        return reference + timedelta(days=sign * _UNIT_DAYS[match["unit"].casefold()])
    count_text = match["n"].casefold()
    count = _FEW.get(count_text) or int(NUMBER_WORDS.get(count_text, count_text))
    sign = -1 if match["dir3"].casefold() == "ago" else 1
    return reference + timedelta(days=sign * count * _UNIT_DAYS[match["unit2"].casefold()])


def _weekday(reference: date, name: str, direction: str) -> date:
    """ "last Sunday" is the most recent Sunday before the reference day; "next Sunday" the
    first after it; "this"/"on Sunday" the one in the reference's week."""
    target = WEEKDAYS.index(name)
    delta = target - reference.weekday()
    if direction == "last":
        return reference + timedelta(days=delta - 7 if delta >= 0 else delta)
    if direction == "next":
        return reference + timedelta(days=delta + 7 if delta <= 0 else delta)
    return reference + timedelta(days=delta)
