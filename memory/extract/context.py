"""What a rule sees (one clause of one message) and what it returns (a candidate).

A rule is a function `Clause -> Iterable[Candidate]`. Candidate offsets are absolute offsets
into the message text; the extractor turns candidates into `Extraction`s with evidence, time
and speaker, so no rule has to know about those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from memory.extract.base import USER, Kind, Role
from memory.extract.person import ADVERBS
from memory.extract.text import Regions, Span

# How much one speaker's words count. The user speaking about themselves is the evidence;
# a stored block (a note someone wrote down) nearly so; an assistant restating "you prefer"
# may be paraphrasing or wrong.
ROLE_WEIGHT: Final[dict[str, float]] = {
    "user": 1.0,
    "document": 0.9,
    "assistant": 0.55,
    "system": 0.5,
}

ADV: Final = r"(?:" + "|".join(sorted(ADVERBS)) + r")"
# The speaker referring to themselves, by role: the user's "I", an assistant's "you", a
# note's "the user". The rules match all of them; `subject_allowed` keeps the right one.
SUBJ: Final = r"(?P<subj>\bI\b|\b[Yy]ou\b|\b(?:[Tt]he\s+)?[Uu]ser\b)"
SUBJ_WE: Final = r"(?P<subj>\bI\b|\b[Ww]e\b|\b[Yy]ou\b|\b(?:[Tt]he\s+)?(?:[Uu]ser|[Tt]eam)\b)"
# One character of running text: no clause punctuation, but a dot inside a word
# ("example.org", "2.5") and a colon or comma between digits ("9:30", "2,500") are text.
TEXT_CHAR: Final = r"(?:[^,.;:!?()\[\]\n\"]|\.(?=\w)|(?<=\d)[:,](?=\d))"
# A value: a short run of text, ended before a connective or punctuation.
VALUE: Final = (
    rf"(?P<value>{TEXT_CHAR}{{1,80}}?)"
    r"(?=\s+(?:because|since|as|when|while|but|so|and then|which|who|though|although|"
    r"if|unless|until|whenever|now|anymore|and\s+(?:I|I'm|I've|my|we|our|he|she|they|it|then))\b"
    r"|\s*(?:[;!?()\[\]\n\"]|,(?!\d)|\.(?!\w)|:(?!\d))|\s*$)"
)
DISCOURSE: Final = re.compile(
    r"(?:(?:oh|ah|well|so|also|and|but|anyway|anyways|btw|by the way|ok|okay|yes|yeah|yep|"
    r"sure|great|thanks|thank you|hey|hi|hello|honestly|actually|basically|incidentally|"
    r"you know|you see|on that note|for example|for instance|e\.g\.|on a side note|as for me|"
    r"for context|fyi|"
    r"just so you know|for the record|funny enough|interestingly)\b[,!]?\s*"
    r"|(?:no|nope|nah|wait|oh wait|sorry|oops|correction|scratch that|my bad)\s*[,:!]\s*)+",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of one message; `text` is the whole message, the clause is [start, end)."""

    text: str
    start: int
    end: int
    unit_index: int
    role: Role
    question: bool
    regions: Regions
    sentence: Span
    # The clause's lower-case words: rule families test these before running their patterns.
    words: frozenset[str] = frozenset()

    @property
    def body(self) -> str:
        return self.text[self.start : self.end]

    def body_start(self) -> int:
        """Where the clause's content starts, after "By the way, ", "Oh, and " and the like."""
        found = DISCOURSE.match(self.text, self.start, self.end)
        return found.end() if found else self.start

    def quoted(self, position: int) -> bool:
        return self.regions.contains(position)


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: Kind
    subject: str
    attribute: str
    value: str
    statement: str
    confidence: float
    start: int
    end: int
    rule: str
    negated: bool = False
    # Further evidence (unit index, start, end): the error a fix belongs to, say.
    support: tuple[tuple[int, int, int], ...] = ()


Rule = Callable[[Clause], Iterable[Candidate]]


_WORD: Final = re.compile(r"[a-z]+(?:'[a-z]+)?")


def words_of(text: str) -> frozenset[str]:
    """The lower-case words of `text` ("I'm" -> "i'm"), for the rule families' gates."""
    return frozenset(_WORD.findall(text.lower().replace("\u2019", "'")))


def subject_allowed(role: Role, subject: str) -> bool:
    """Whether `subject` (as matched by SUBJ) names the user when `role` says it."""
    word = subject.casefold()
    if word in {"i", "we"}:
        return role in {"user", "document"}
    if word == "you":
        return role == "assistant"
    return role in {"document", "assistant"}  # "the user", "the team"


def owner_allowed(role: Role, possessive: str) -> bool:
    """Whether a possessive ("my", "your", "the user's") is the user's when `role` says it.

    An assistant's "your settings are correct" is advice far more often than a restatement,
    so "your" counts only in the preference rules, which check for restating words.
    """
    word = possessive.casefold()
    if word in {"my", "our"}:
        return role in {"user", "document"}
    if word == "your":
        return role == "assistant"
    return role in {"document", "assistant"}


def subject_of(subject: str) -> str:
    """The normalised subject of a matched SUBJ_WE group: "user" or "team"."""
    word = subject.casefold()
    return "team" if word in {"we", "team", "the team"} else USER


def weigh(base: float, role: Role) -> float:
    return round(base * ROLE_WEIGHT[role], 2)


def finditer(pattern: re.Pattern[str], clause: Clause) -> Iterable[re.Match[str]]:
    """Matches of `pattern` in the clause that do not start inside quoted speech or code."""
    for match in pattern.finditer(clause.text, clause.start, clause.end):
        if not clause.quoted(match.start()):
            yield match


_FILLER_END: Final = re.compile(
    r"(?:\s+(?:a lot|too|as well|so much|very much|lately|now|already|for now|for the moment|"
    r"for today|right now|anyway|though))+$",
    re.IGNORECASE,
)


def clean_value(value: str) -> str:
    """A value without surrounding spaces, a dangling quote, or trailing filler words.

    A quote that opens and closes a title stays ('"Rumours" by Fleetwood Mac'); one left
    dangling where the pattern cut the text goes.
    """
    value = value.strip(" \t'").rstrip(".,;:!?")
    if value.count('"') % 2:
        value = value.strip('"')
    if value.count("\u201c") != value.count("\u201d"):
        value = value.strip("\u201c\u201d")
    value = _FILLER_END.sub("", value)
    return " ".join(value.split())
