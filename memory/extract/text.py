"""Sentences and clauses with their character offsets, and the tests that keep rules honest:
is this clause a question, a hypothetical, inside quoted speech or code?

Every function returns offsets into the original text, so evidence can quote it exactly.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final

from memory.extract.lexicon import words

# A message longer than this is scanned only up to here: extraction stays linear and bounded
# on pasted logs, and what people say about themselves sits in the prose, not in 50 KB dumps.
MAX_UNIT_CHARS: Final = 20_000

_ABBREVIATIONS: Final = words(
    "mr mrs ms dr prof st vs etc e.g i.e a.m p.m approx no jr sr dept fig "
    "mt ft jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k"
)
# A sentence ends at . ! ? (with closing quotes/brackets) before whitespace, or at a line
# break: chat messages use lines as sentences (lists, headings) far more often than prose.
_SENTENCE_END: Final = re.compile(r"[.!?]+[\"')\]\u201d\u2019]*(?=\s)|\n")
_WORD_BEFORE: Final = re.compile(r"([A-Za-z][A-Za-z.]*)\.*$")
# Strong clause boundaries only: a dash between words, a semicolon, and a comma followed by a
# coordinating conjunction and a new subject. A plain comma stays inside the clause (lists,
# appositions, "For my sister's birthday, I got her ...").
_CLAUSE_BREAK: Final = re.compile(
    r"\s+[-\u2013\u2014]{1,2}\s+|;\s+|,\s+(?:and|but|so|though|although|because|plus)\s+"
    r"(?=(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our|it|it's|that|this|there|the|he|she|they|"
    r"do|does|did|can|could|would|will|should|is|are|what|how|any)\b)"
    r"|,\s+(?=(?:do|does|did|can|could|would|will|should|is|are|was|were|have|has|what|how|"
    r"any)\s+(?:you|I|we|it|there|anyone)\b)",
    re.IGNORECASE,
)
# A comma splice: ", I loved it" after a clause that has its own "I" ("I'm going back to
# Hawaii, I loved it"). After an opening phrase without one ("For my sister's birthday, I
# got her ...") the comma stays, or the phrase would lose its clause.
_SPLICE: Final = re.compile(r",\s+(?=I(?:'m|'ve|'d|\u2019m|\u2019ve)?\s)")
_HAS_I: Final = re.compile(r"\bI(?:'m|'ve|'d|\u2019m|\u2019ve)?\s")
_DASH: Final = re.compile(r"\s+[-\u2013\u2014]{1,2}\s+")
# A dash followed by this few words adds a detail ("- $800, to be exact") to its clause.
SHORT_DASH_WORDS: Final = 6
_CODE_FENCE: Final = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_QUOTED: Final = re.compile(r"\"[^\"\n]{1,400}\"|\u201c[^\u201d\n]{1,400}\u201d")

_INTERROGATIVE_START: Final = re.compile(
    r"^(?:(?:and|but|so|also|or|oh|well|ok|okay|then)[, ]+)*"
    r"(?:(?:do|does|did|am|is|are|was|were|can|could|would|will|should|shall|have|has|had|may|"
    r"might|must|shan't|won't|don't|doesn't|didn't|isn't|aren't|wasn't|can't|couldn't|"
    r"wouldn't|shouldn't|haven't|hasn't)\s+(?:i|you|we|they|he|she|it|my|your|the|this|that|"
    r"there|anyone|someone|any)\b"
    r"|(?:what|which|who|whom|whose|where|when|why|how)\b(?!\s+i\s+(?:was|am|'m|got)\b))",
    re.IGNORECASE,
)
_HYPOTHETICAL: Final = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|assuming|hypothetically|whether|in case|"
    r"let's say|say that|pretend|what if|wish|were i|should i|would|could|might|i'd|we'd|"
    r"you'd|maybe|perhaps|possibly|probably not|not sure|wondering|wonder)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int

    def text(self, source: str) -> str:
        return source[self.start : self.end]


def trim(text: str, start: int, end: int) -> Span:
    """The span without surrounding whitespace and list markers ("- ", "1. ", "* ")."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    marker = re.match(r"(?:[-*\u2022>#]+|\d{1,2}[.)])\s+", text[start:end])
    if marker:
        start += marker.end()
    return Span(start, end)


def sentences(text: str) -> list[Span]:
    """The sentences of `text` (up to MAX_UNIT_CHARS), in order, trimmed, never empty."""
    limit = min(len(text), MAX_UNIT_CHARS)
    spans: list[Span] = []
    start = 0
    for match in _SENTENCE_END.finditer(text, 0, limit):
        if match.group() != "\n" and _is_abbreviation(text, match.start()):
            continue
        _append(spans, trim(text, start, match.end() if match.group() != "\n" else match.start()))
        start = match.end()
    _append(spans, trim(text, start, limit))
    return spans


def _is_abbreviation(text: str, dot: int) -> bool:
    if text[dot] != ".":
        return False
    word = _WORD_BEFORE.search(text, max(0, dot - 12), dot + 1)
    if word is None:
        return False
    token = word.group(1).lower().rstrip(".")
    return token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha())


def _append(spans: list[Span], span: Span) -> None:
    if span.end > span.start:
        spans.append(span)


def clauses(text: str, sentence: Span) -> list[Span]:
    """The sentence split at strong clause boundaries (_CLAUSE_BREAK, comma splices)."""
    breaks = [m.span() for m in _CLAUSE_BREAK.finditer(text, sentence.start, sentence.end)]
    breaks = _with_splices(text, sentence, breaks)
    spans: list[Span] = []
    start = sentence.start
    for index, (cut, resume) in enumerate(breaks):
        following_end = breaks[index + 1][0] if index + 1 < len(breaks) else sentence.end
        if _detail_after_dash(text, cut, resume, following_end):
            continue
        _append(spans, trim(text, start, cut))
        start = resume
    _append(spans, trim(text, start, sentence.end))
    return spans


def _with_splices(
    text: str, sentence: Span, breaks: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    out = list(breaks)
    for m in _SPLICE.finditer(text, sentence.start, sentence.end):
        previous = max((end for _, end in out if end <= m.start()), default=sentence.start)
        if _HAS_I.search(text, previous, m.start()):
            out.append(m.span())
    return sorted(out)


def _detail_after_dash(text: str, cut: int, resume: int, following_end: int) -> bool:
    if not _DASH.fullmatch(text, cut, resume):
        return False
    following = text[resume:following_end]
    return len(following.split()) <= SHORT_DASH_WORDS and not is_interrogative(following)


def is_interrogative(clause: str) -> bool:
    """True for a clause that asks: it ends with "?" or starts like a question."""
    stripped = clause.rstrip(" \"')]\u201d")
    return stripped.endswith("?") or _INTERROGATIVE_START.match(clause) is not None


def question_clauses(text: str, sentence: Span, parts: list[Span]) -> list[bool]:
    """For each clause of `sentence`, whether it belongs to a question.

    "I have 20 playlists, and do you have tips?" asks only in its last clause; a sentence
    that starts asking ("Do you think I prefer X, and ...?") asks throughout.
    """
    flags = [is_interrogative(p.text(text)) for p in parts]
    if flags and flags[0] and sentence.text(text).rstrip(" \"')]").endswith("?"):
        return [True] * len(parts)
    return flags


def is_hypothetical(clause: str) -> bool:
    """True when the clause is conditional, wished, modal or hedged into a non-statement."""
    return _HYPOTHETICAL.search(clause) is not None


class Regions:
    """Spans a rule must not start in: quoted speech and code. Sorted, non-overlapping."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, text: str) -> None:
        limit = min(len(text), MAX_UNIT_CHARS)
        found = [m.span() for m in _CODE_FENCE.finditer(text, 0, limit)]
        found += [m.span() for m in _QUOTED.finditer(text, 0, limit)]
        merged: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if merged and start < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        self._starts = [s for s, _ in merged]
        self._ends = [e for _, e in merged]

    def contains(self, position: int) -> bool:
        index = bisect_right(self._starts, position) - 1
        return index >= 0 and position < self._ends[index]
