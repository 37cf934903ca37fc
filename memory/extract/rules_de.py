"""German, the cheap part: the commonest explicit statements, with English statements and
the same attributes as the English rules, so a German "ich wohne in Köln" supersedes an
English "I live in Berlin"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memory.extract.base import TEAM, USER
from memory.extract.context import Candidate, Clause, clean_value, finditer, weigh
from memory.extract.lexicon import category_of, slug, words
from memory.extract.person import sentence

# Cheap gate: a clause without one of these words runs none of the German patterns.
_GATE: Final = words("ich wir mein meine meinen unser unsere ab")
_WORDS: Final = (
    r"(?P<value>[^,.;:!?()\n]{1,80}?)"
    r"(?=\s+(?:weil|da|denn|aber|wenn|als)\b|\s*[,.;:!?()\n]|\s*$)"
)
_NAME: Final = r"(?P<value>[A-ZÄÖÜ][\wäöüß&'-]*(?:\s+[A-ZÄÖÜ][\wäöüß&'-]*){0,3})"

_PATTERNS: Final[tuple[tuple[re.Pattern[str], str, str, str, str], ...]] = (
    # (pattern, kind, attribute, statement template, rule); "{v}" is the value.
    (
        re.compile(rf"\b[Ii]ch\s+(?:arbeite|bin\s+angestellt)\s+(?:bei|für)\s+{_NAME}"),
        "fact",
        "employer",
        "The user works at {v}",
        "de_employer",
    ),
    (
        re.compile(rf"\b[Ii]ch\s+(?:wohne|lebe)\s+(?:jetzt\s+)?in\s+{_NAME}"),
        "fact",
        "lives_in",
        "The user lives in {v}",
        "de_place",
    ),
    (
        re.compile(rf"\b[Ii]ch\s+bin\s+(?:jetzt\s+)?nach\s+{_NAME}\s+(?:gezogen|umgezogen)"),
        "fact",
        "lives_in",
        "The user moved to {v}",
        "de_moved",
    ),
    (
        re.compile(rf"\b[Ii]ch\s+(?:bevorzuge|nehme lieber|mag lieber)\s+{_WORDS}"),
        "preference",
        "prefers",
        "The user prefers {v}",
        "de_prefer",
    ),
    (
        re.compile(rf"\b[Ii]ch\s+(?:mag|liebe)\s+(?!es\b|das\b|dich\b){_WORDS}"),
        "preference",
        "likes",
        "The user likes {v}",
        "de_like",
    ),
    (
        re.compile(rf"\b[Ii]ch\s+(?:hasse|mag\s+kein(?:e|en)?)\s+{_WORDS}"),
        "preference",
        "likes",
        "The user dislikes {v}",
        "de_dislike",
    ),
    (
        re.compile(
            r"\b[Ww]ir\s+haben\s+(?:uns\s+)?(?:entschieden|beschlossen|geeinigt)"
            rf"(?:,?\s*(?:dass|für|auf)\s+|,\s*){_WORDS}"
        ),
        "decision",
        "decision",
        "The team decided: {v}",
        "de_decided",
    ),
    (
        re.compile(rf"\b[Aa]b\s+jetzt\s*,?\s+{_WORDS}"),
        "preference",
        "rule",
        "From now on: {v}",
        "de_from_now_on",
    ),
)
_MEIN_X_IST: Final = re.compile(
    r"\b(?P<poss>[Mm]ein(?:e)?|[Uu]nser(?:e)?)\s+(?P<attr>[A-ZÄÖÜ][\wäöüß-]*)\s+"
    rf"(?:ist|heißt|heisst|war)\s+{_WORDS}"
)


def german(clause: Clause) -> Iterator[Candidate]:
    """German explicit statements of one clause (none from questions)."""
    if clause.question or clause.role not in {"user", "document"}:
        return
    if clause.words.isdisjoint(_GATE):
        return
    for pattern, kind, attribute, template, rule in _PATTERNS:
        for m in finditer(pattern, clause):
            value = clean_value(next(v for v in m.groups() if v))
            negated = rule == "de_dislike"
            yield _candidate(
                clause, m, kind, _attribute(attribute, value), value, template, rule, negated
            )
    for m in finditer(_MEIN_X_IST, clause):
        value = clean_value(m["value"])
        subject = TEAM if m["poss"].casefold().startswith("unser") else USER
        owner = "The team's" if subject == TEAM else "The user's"
        attribute = "name" if m["attr"] == "Name" else slug(m["attr"])
        yield Candidate(
            kind="fact",
            subject=subject,
            attribute=attribute,
            value=value,
            statement=sentence(f"{owner} {m['attr']} is {value}"),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="de_mein_x_ist",
        )


def _attribute(attribute: str, value: str) -> str:
    if attribute == "prefers":
        category = category_of(value)
        return f"preferred_{category}" if category else attribute
    if attribute in {"decision", "rule"}:
        return f"{attribute}:{slug(value)}"
    return attribute


def _candidate(
    clause: Clause,
    m: re.Match[str],
    kind: str,
    attribute: str,
    value: str,
    template: str,
    rule: str,
    negated: bool,
) -> Candidate:
    return Candidate(
        kind="fact" if kind == "fact" else "preference" if kind == "preference" else "decision",
        subject=TEAM if kind == "decision" else USER,
        attribute=attribute,
        value=value,
        statement=sentence(template.format(v=value)),
        confidence=weigh(0.85, clause.role),
        start=m.start(),
        end=m.end(),
        rule=rule,
        negated=negated,
    )
