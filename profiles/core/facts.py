"""User-stated facts ("my name is Priya", "I work at Siemens"): a tier apart from style rules,
with its own lifecycle (a newer value replaces the older one; an empty value retracts it)."""

from __future__ import annotations

import re

from profiles.core.interpretation import UserFact, make_fact
from profiles.core.lexicon import NATURAL, NATURAL_CANONICAL

_ROLE_WORDS = (
    r"engineer|developer|programmer|scientist|designer|manager|analyst|researcher|student|"
    r"teacher|writer|consultant|architect|administrator|admin|founder|doctor|lawyer|marketer|"
    r"product owner|devops|sre|editor|journalist|translator|tester|lead|cto|ceo"
)
_NAME = r"(?P<value>[A-ZÄÖÜ][\w'-]{1,30}(?: [A-ZÄÖÜ][\w'-]{1,30})?)"
_ORG = r"(?P<value>[A-Z0-9][\w&.'-]{1,40}(?: [A-Z0-9][\w&.'-]{1,40}){0,3})"
_TZ = r"(?P<value>(?:UTC|GMT)(?:[+-]\d{1,2}(?::\d{2})?)?|[A-Z]{2,5}T|CET|[A-Z][a-z]+/[A-Za-z_]+)"

# (key, pattern) — names, organisations and zones keep their case, so these run on the
# original text with case-insensitive lead words only.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("name", re.compile(rf"(?i:\bmy name is|\bcall me|\bi go by|\bich heiße) {_NAME}")),
    ("name", re.compile(r"(?i)\bmy name is (?P<value>[a-zäöü][\w'-]{1,30})\b")),
    (
        "role",
        re.compile(
            rf"(?i)\b(?:i'?m|i am|i work as|ich bin)\s+(?:an?\s+|ein(?:e)?\s+)?"
            rf"(?P<value>(?:[\w-]+\s+){{0,3}}(?:{_ROLE_WORDS}))\b"
        ),
    ),
    (
        "employer",
        re.compile(rf"(?i:\bi work (?:at|for)|\bi'?m (?:at|with)|\bich arbeite bei) {_ORG}"),
    ),
    (
        "location",
        re.compile(rf"(?i:\bi(?:'m| am) (?:based|located|living) in|\bi live in) {_NAME}"),
    ),
    ("timezone", re.compile(rf"(?i:\bmy time ?zone is|\bi'?m on|\bi am on) {_TZ}")),
    ("timezone", re.compile(rf"\b{_TZ} (?i:time ?zone)")),
    ("pronouns", re.compile(r"(?i)\bmy pronouns are (?P<value>[a-z]+/[a-z]+)")),
)
_LANGUAGES = re.compile(
    rf"(?i)\b(?:i speak|i'm fluent in|i am fluent in|ich spreche) (?P<value>(?:(?:{NATURAL})"
    rf"(?:,\s*|\s+and\s+|\s+und\s+)?){{1,6}})"
)
_RETRACT_EMPLOYER = re.compile(
    r"(?i)\b(?:i no longer work (?:at|for)|i left|i don't work (?:at|for) \S+ any ?more)\b"
)


def extract_facts(note: str, signal_id: str = "") -> tuple[UserFact, ...]:
    """Facts stated in a note, one per key (the first statement of a key wins)."""
    found: dict[str, UserFact] = {}
    for key, pattern in _PATTERNS:
        match = pattern.search(note)
        if match and key not in found:
            value = match.group("value").strip(" .,")
            if key == "name" and value.islower():
                value = value.title()
            found[key] = make_fact(key, value, signal_id)
    languages = _languages(note)
    if languages:
        found["languages"] = make_fact("languages", languages, signal_id)
    if _RETRACT_EMPLOYER.search(note):
        found["employer"] = make_fact("employer", "", signal_id)
    return tuple(found.values())


def _languages(note: str) -> str:
    match = _LANGUAGES.search(note)
    if not match:
        return ""
    names = re.findall(NATURAL, match.group("value").lower())
    ordered = dict.fromkeys(NATURAL_CANONICAL.get(n, n).title() for n in names)
    return ", ".join(ordered)
