"""A preview with the query's words marked: the text is escaped piece by piece and only the
`<mark>` tags this module writes are markup."""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_WORD = re.compile(r"\w{2,}", re.UNICODE)
MAX_WORDS = 20


def words(query: str) -> list[str]:
    """The query's distinct words of two letters or more, longest first (a longer match wins)."""
    found = {w.lower() for w in _WORD.findall(query)}
    return sorted(found, key=lambda w: (-len(w), w))[:MAX_WORDS]


def marked(text: str, query: str) -> SafeString:
    terms = words(query)
    if not terms:
        return escape(text)
    pattern = re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)
    out: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        last = match.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece escaped above
