"""Whether two similar texts are one record written twice, a dated series, or distinct records.

Embeddings barely see numbers and names: two invoices that differ only in their number, amount
and due date sit at cosine 0.99, and so do three weekly stand-up notes with the same wording.
The guard must never treat those as copies, so before a pair is flagged its texts are compared
on what tells records apart:

- dates (every form `retrieval.temporal.anchors` reads, English and German, plus the blocks'
  own validity dates): a pair that differs only there is a `recurrent` series, not a copy;
- any other token carrying a digit (amounts, identifiers like INV-2026-1005, versions, times)
  and any capitalised word not opening a sentence (names of people, companies, products):
  a pair where one text has such a token the other lacks is `distinct`, whatever its cosine.

A token counts as present in the other text when that text has the same word in any case, so
"Compose" at a sentence start and "compose" inside one are not a difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import Final, Literal

from retrieval.temporal.anchors import extract_anchors

Difference = Literal["same", "recurrent", "distinct"]

_TOKEN: Final = re.compile(r"\w(?:[\w.,:/#+-]*\w)?")
_SENTENCE_END: Final = frozenset(".!?:;\n*#>-•|(\"'")
_DATE_MARK: Final = " "  # a masked date leaves spaces: never part of a token


def _masked(text: str) -> tuple[str, frozenset[date]]:
    """The text with its dates blanked out, and the dates."""
    anchors = extract_anchors(text)
    chars = list(text)
    for anchor in anchors:
        start, end = anchor.span
        chars[start:end] = _DATE_MARK * (end - start)
    return "".join(chars), frozenset(anchor.value for anchor in anchors)


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t")
    return not before or before[-1] in _SENTENCE_END


def _telling(text: str) -> set[str]:
    """Tokens that tell records apart: with a digit, or a capitalised word inside a sentence."""
    found = set()
    for match in _TOKEN.finditer(text):
        token = match.group()
        has_digit = any(c.isdigit() for c in token)
        named = token[0].isupper() and not _opens_sentence(text, match.start())
        if has_digit or named:
            found.add(token.lower())
    return found


def _words(text: str) -> set[str]:
    return {token.lower() for token in _TOKEN.findall(text)}


def compare(
    first: str, second: str, *, dates: tuple[Iterable[date], Iterable[date]] = ((), ())
) -> Difference:
    """How `first` relates to `second` (title and content each); `dates` are the blocks' own
    validity dates, which count like dates in the text."""
    text_a, dates_a = _masked(first)
    text_b, dates_b = _masked(second)
    words_a, words_b = _words(text_a), _words(text_b)
    if not _telling(text_a) <= words_b or not _telling(text_b) <= words_a:
        return "distinct"
    if dates_a | set(dates[0]) != dates_b | set(dates[1]):
        return "recurrent"
    return "same"
