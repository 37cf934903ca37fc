"""Typo tolerance for the simple keywords: one edit on words of six letters or more.

The first letter must match: typing slips rarely hit it, and it keeps real words one edit
away ("western" from "gestern") out.
"""

from __future__ import annotations

import re
from typing import Final

from retrieval.temporal.lexicon import FUZZY_KEYWORDS

MIN_LENGTH: Final = 6
_TOKEN: Final = re.compile(rf"\b[^\W\d_]{{{MIN_LENGTH},12}}\b")
_BY_INITIAL: Final[dict[str, tuple[str, ...]]] = {
    initial: tuple(word for word in FUZZY_KEYWORDS if word[0] == initial)
    for initial in {word[0] for word in FUZZY_KEYWORDS}
}


def within_one_edit(word: str, target: str) -> bool:
    """True when one insertion, deletion, substitution or swap of neighbours turns `word`
    into `target` (or they are equal)."""
    if abs(len(word) - len(target)) > 1:
        return False
    prefix = 0
    limit = min(len(word), len(target))
    while prefix < limit and word[prefix] == target[prefix]:
        prefix += 1
    rest_word, rest_target = word[prefix:], target[prefix:]
    return (
        rest_word[1:] == rest_target[1:]
        or rest_word[1:] == rest_target
        or rest_word == rest_target[1:]
        or (rest_word[:2] == rest_target[1::-1] and rest_word[2:] == rest_target[2:])
    )


def closest_keyword(token: str) -> str | None:
    """Return the keyword `token` is a typo of, or None."""
    if len(token) < MIN_LENGTH:
        return None
    for target in _BY_INITIAL.get(token[0], ()):
        if within_one_edit(token, target):
            return target
    return None


def fuzzy_tokens(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Return (keyword, span) for every token of lower-cased `text` that is a keyword typo."""
    found = []
    for match in _TOKEN.finditer(text):
        keyword = closest_keyword(match.group())
        if keyword is not None:
            found.append((keyword, match.span()))
    return found
