"""What a sentence takes for granted about the user: "my certification in Data Science, which I
completed last month", "the lemon cake that I made for a colleague's party", "As a Sony camera
user, I ...".

These facts sit in relative clauses and opening phrases, often inside a question or a request
("Can you suggest a cake like the lemon cake that I made?"). The question's own proposition
is never taken; what it presupposes about the user's past is, with lower confidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memory.extract.base import USER
from memory.extract.context import ADV, Candidate, Clause, clean_value, finditer, weigh
from memory.extract.lexicon import words
from memory.extract.person import IRREGULAR_PAST, is_past, sentence, third_person

_GATE: Final = re.compile(r"(?:that|which)\s+I\b|\b[Aa]s\s+an?\s")
_DETERMINER: Final = r"(?:my|the|a|an|this|that|these|those|some|our)"
_PAST: Final = r"(?:[a-z]+ed|" + "|".join(sorted(IRREGULAR_PAST - {"been", "gotten"})) + ")"
_WHICH_I_DID: Final = re.compile(
    rf"\b(?P<np>{_DETERMINER}\s+(?:[\w'$%-]+\s+){{0,6}}?[\w'$%-]+),?\s+(?:that|which)\s+"
    rf"I\s+(?:{ADV}\s+)*(?P<verb>{_PAST})\b(?P<rest>[^,.;:!?()\n]{{0,80}})",
)
# Verbs that refer back to the conversation ("the recipe that I mentioned"), not to a deed.
_CONVERSATIONAL: Final = words(
    "said mentioned asked told meant described shared listed wrote posted sent pasted "
    "provided gave showed suggested quoted noted referenced added"
)
# "the video which I was doing": an auxiliary is no deed of its own.
_AUXILIARIES: Final = words("was were had did been")
_LAST_DETERMINER: Final = re.compile(rf"(?<!\bof\s)\b{_DETERMINER}\s")
_AS_A: Final = re.compile(
    r"(?:^|(?<=[,.;!?]\s))[Aa]s\s+(?P<article>an?)\s+(?P<what>[\w'-]+(?:\s+[\w'-]+){0,5}?),\s+"
    r"I\b"
)


def presupposed(clause: Clause) -> Iterator[Candidate]:
    """Facts in relative clauses and "As a ..., I" phrases, questions included."""
    if clause.role not in {"user", "document"}:
        return
    if not _GATE.search(clause.text, clause.start, clause.end):
        return
    base = 0.6 if clause.question else 0.7
    yield from _relative_clauses(clause, base)
    yield from _as_a(clause, base)


def _relative_clauses(clause: Clause, base: float) -> Iterator[Candidate]:
    for m in finditer(_WHICH_I_DID, clause):
        if m["verb"] in _CONVERSATIONAL or m["verb"] in _AUXILIARIES or not is_past(m["verb"]):
            continue  # "the trip that I need to plan" is no past deed
        noun_phrase = _nearest_phrase(m["np"])
        rest = clean_value(m["rest"])
        text = f"The user {m['verb']} {third_person(noun_phrase, named=True)}"
        text += f" {third_person(rest, named=True)}" if rest else ""
        yield Candidate(
            kind="fact",
            subject=USER,
            attribute="note",
            value=clean_value(f"{m['verb']} {noun_phrase} {rest}"),
            statement=sentence(text),
            confidence=weigh(base, clause.role),
            start=m.start("np") + m["np"].rfind(noun_phrase),
            end=m.end(),
            rule="presupposed",
        )


def _as_a(clause: Clause, base: float) -> Iterator[Candidate]:
    start = clause.body_start()
    m = _AS_A.match(clause.text[start : clause.end])
    if m is not None and not clause.quoted(start):
        what = clean_value(m["what"])
        yield Candidate(
            kind="fact",
            subject=USER,
            attribute="identity",
            value=what,
            statement=sentence(f"The user is {m['article'].lower()} {what}"),
            confidence=weigh(base, clause.role),
            start=start + m.start(),
            end=start + m.end("what"),
            rule="as_a",
        )


def _nearest_phrase(phrase: str) -> str:
    """The noun phrase from its last determiner ("a dress for the party" -> "the party"),
    unless that determiner follows "of" ("the painting of a sunset" stays whole)."""
    starts = [m.start() for m in _LAST_DETERMINER.finditer(phrase)]
    return phrase[starts[-1] :] if starts else phrase
