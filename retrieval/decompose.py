"""Splitting a comparison question into the things it compares (English and German).

"Which happened first, the purchase of the coffee maker or the malfunction of the stand
mixer?" needs two blocks, one about each event; one embedding of the whole question lands
between them and may find neither. Each part is searched as well, and a block counts with its
best score for the question or any part (`retrieval.search.Retrieval.fused`).

Rules, first match wins: two or more quoted names; "between X and Y" / "zwischen X und Y";
a trailing ", X or Y?" / ", X oder Y?". A part must have 1 to 12 words.
"""

from __future__ import annotations

import re

MAX_PARTS = 4
MAX_PART_WORDS = 12

# Opening and closing quotes: straight, typographic (\u2018-\u201d), German (\u201e), guillemets.
_OPEN = "\"'\u2018\u201c\u201e\u00ab"
_CLOSE = "\"'\u2019\u201d\u201c\u00bb"
_QUOTED = re.compile(rf"(?<![\w])[{_OPEN}]([^{_OPEN}{_CLOSE}]{{2,80}}?)[{_CLOSE}](?![\w])")
_DET = r"(?:(?:the|my|a|an|der|die|das|dem|den|mein|meine|meinem|meinen)\s+)?"
_BETWEEN = re.compile(
    rf"\b(?:between|zwischen)\s+{_DET}(.+?)\s+(?:and|und)\s+{_DET}(.+?)\s*(?:[?.!]|$|\bcombined\b)",
    re.IGNORECASE,
)
_EITHER = re.compile(rf",\s*{_DET}(.+?)\s+(?:or|oder)\s+{_DET}(.+?)\s*[?.!]?\s*$", re.IGNORECASE)


def _usable(part: str) -> bool:
    return 1 <= len(part.split()) <= MAX_PART_WORDS


def parts(question: str) -> list[str]:
    """The compared things, or [] when the question compares nothing."""
    quoted = [q.strip() for q in _QUOTED.findall(question)]
    quoted = [q for q in dict.fromkeys(quoted) if _usable(q)]
    if len(quoted) >= 2:
        return quoted[:MAX_PARTS]
    for rule in (_BETWEEN, _EITHER):
        match = rule.search(question)
        if match:
            found = [g.strip(" ,;:") for g in match.groups()]
            if all(_usable(p) for p in found) and found[0].lower() != found[1].lower():
                return found
    return []
