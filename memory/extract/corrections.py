"""Corrections: "no, it's Thursday", "actually ...", "I meant ...", "Thursday, not Tuesday".

Everything extracted from a correcting sentence is flagged `corrects=True`. A bare value
("no, it's Thursday") names no attribute; it corrects the latest earlier extraction whose
value it replaces by name ("..., not Tuesday") or, failing that, whose value has the same
type (a weekday for a weekday, a time for a time).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from memory.extract.base import Evidence, Extraction
from memory.extract.lexicon import MONTHS, NUMBER_WORDS, WEEKDAYS, words

_MARKER: Final = re.compile(
    r"(?:(?:no|nope|nah|wait|oh wait|sorry|oops|correction|scratch that|my bad)\s*[,:!]"
    r"|actually\b|I\s+meant\b|I\s+mean\b\s*,|let me correct|to correct (?:that|myself)|"
    r"(?:that's|that is)\s+(?:wrong|not right|incorrect))",
    re.IGNORECASE,
)
# "Thursday, not Tuesday": the comma keeps "I'm not sure" out.
_X_NOT_Y: Final = re.compile(r"\b[\w:@.'-]+,\s+not\s+[\w:@.'-]+\s*[.!]?\s*$", re.IGNORECASE)
_BARE: Final = re.compile(
    r"(?:(?:no|nope|nah|wait|sorry|oops|actually|correction)\s*[,:!]?\s*)*"
    r"(?:(?:it's|it is|it was|that's|that is|make that|I meant|I mean|it should be|"
    r"rather|the answer is)\s+)?(?:on\s+)?"
    r"(?P<value>[\w:@.'/+-]+(?:\s+[\w:@.'/+-]+){0,2}?)"
    r"(?:,?\s+not\s+(?:on\s+)?(?P<old>[\w:@.'/+-]+(?:\s+[\w:@.'/+-]+){0,2}?))?"
    r"\s*[.!]?\s*$",
    re.IGNORECASE,
)
_TIME: Final = re.compile(r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}", re.I)
_EMAIL: Final = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_PREPOSITION: Final = re.compile(r"(?:at|on|in|by|around|about)\s+", re.IGNORECASE)
_FILLER: Final = words("it that this yes no ok okay sure right wrong")


def is_correction(sentence: str) -> bool:
    """True when the sentence corrects something said before."""
    return _MARKER.match(sentence) is not None or _X_NOT_Y.search(sentence) is not None


def value_type(value: str) -> str:
    """A coarse type that says which earlier value a bare correction can replace."""
    value = value.strip()
    lead = _PREPOSITION.match(value)
    value = value[lead.end() :] if lead else value
    word = value.casefold().rstrip("s.")
    if word in WEEKDAYS:
        return "weekday"
    if word in MONTHS:
        return "month"
    if _TIME.fullmatch(value.strip()):
        return "time"
    if _EMAIL.fullmatch(value.strip()):
        return "email"
    if value.strip().replace(".", "", 1).isdigit() or word in NUMBER_WORDS:
        return "number"
    return "other"


def bare_correction(
    text: str, start: int, end: int, previous: Sequence[Extraction], evidence: Evidence
) -> Extraction | None:
    """The earlier extraction the sentence text[start:end] corrects, with the new value."""
    m = _BARE.match(text, start, end)
    if m is None or m["value"].casefold() in _FILLER:
        return None
    value = m["value"].rstrip(".!")
    if value[:1].islower() and value.casefold().rstrip("s") in WEEKDAYS:
        value = value.capitalize()
    target = _target(value, m["old"], previous)
    if target is None:
        return None
    value = _with_preposition(target.value, value)
    return replace(
        target,
        value=value,
        statement=_restated(target, value),
        evidence=evidence,
        corrects=True,
        rule="correction",
        negated=False,
        confidence=min(target.confidence, 0.85),
    )


def _target(value: str, old: str | None, previous: Sequence[Extraction]) -> Extraction | None:
    candidates = [p for p in reversed(previous) if p.attribute != "note"]
    if old:
        wanted = old.casefold().rstrip(".!").rstrip("s")
        for extraction in candidates:
            if wanted and wanted in extraction.value.casefold():
                return extraction
    kind = value_type(value)
    if kind == "other":
        return None
    return next((p for p in candidates if value_type(p.value) == kind), None)


def _with_preposition(old: str, new: str) -> str:
    """ "at 7:40 am" corrected by "8:10 am" is "at 8:10 am"."""
    lead = _PREPOSITION.match(old)
    if lead and not _PREPOSITION.match(new):
        return lead.group() + new
    return new


def _restated(target: Extraction, value: str) -> str:
    old = target.value
    position = target.statement.casefold().find(old.casefold())
    if old and position >= 0:
        end = position + len(old)
        return target.statement[:position] + value + target.statement[end:]
    owner = "The team's" if target.subject == "team" else f"The {target.subject}'s"
    return f"{owner} {target.attribute.replace('_', ' ')} is {value}."
