"""Word classes of a query: which matchers can possibly fire on it.

Classifying the query's words by set look-ups and prefix tests costs a few microseconds,
where running a matcher's regular expressions costs several; most queries then skip most
matchers, and queries without any temporal word skip them all.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

from retrieval.temporal.fuzzy import MIN_LENGTH, closest_keyword
from retrieval.temporal.lexicon import ALL_MONTHS, KEYWORDS, TIMES_OF_DAY, WEEKDAYS

TOKEN: Final = re.compile(r"[^\W\d_]+")
_DIGIT: Final = re.compile(r"\d")

# Whole words. Months only as whole words, so that "main" is not "Mai" nor "decide" "Dec".
_WORDS: Final[dict[str, str]] = {
    **{word: "month" for word in ALL_MONTHS},
    **{word: "since" for word in ("seit", "since", "bis", "until", "till", "til")},
    **{
        word: "vague"
        for word in (
            "recently",
            "lately",
            "late",
            "other",
            "while",
            "ago",
            "kürzlich",
            "neulich",
            "kurzem",
            "kurzer",
            "zeit",
            "unlängst",
            "jüngst",
            "letztens",
            "soon",
            "bald",
            "demnächst",
            "kürze",
            "future",
            "zukunft",
            "upcoming",
        )
    },
    **{word: "keyword" for phrase in KEYWORDS for word in phrase.split()[-1:]},
}

# Word starts ("weihnachtlich", "dienstags", "morgens", "wochenende", "tagen").
_PREFIXES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "holiday",
        (
            "christmas",
            "xmas",
            "heilig",
            "weihnacht",
            "silvester",
            "neujahr",
            "easter",
            "oster",
            "karfreitag",
            "ascension",
            "himmelfahrt",
            "pentecost",
            "whit",
            "pfingst",
        ),
    ),
    ("weekday", tuple(WEEKDAYS)),
    ("time", (*TIMES_OF_DAY, "frühmorgen", "spätabend")),
    (
        "unit",
        ("tag", "day", "woche", "week", "kalenderwoche", "monat", "month", "jahr", "year", "quart"),
    ),
    ("week", ("woche", "week", "midweek")),
    ("month_unit", ("monat", "month", "midmonth")),
    ("weekend", ("wochenend", "weekend")),
)
# Phrases whose first word is too common to be a prefix.
_PHRASES: Final[tuple[tuple[str, str], ...]] = (
    ("new year", "holiday"),
    ("good friday", "holiday"),
    ("week-end", "weekend"),
)


@functools.lru_cache(maxsize=8192)
def token_classes(token: str) -> frozenset[str]:
    """Return the classes of one lower-cased word (cached: query words repeat a lot)."""
    classes = {name for name, prefixes in _PREFIXES if token.startswith(prefixes)}
    if token in _WORDS:
        classes.add(_WORDS[token])
    return frozenset(classes)


def word_classes(text: str, tokens: Sequence[str]) -> set[str]:
    """Return the classes of the words in lower-cased `text`, already split into `tokens`."""
    classes = {"digit"} if _DIGIT.search(text) else set()
    for token in tokens:
        classes |= token_classes(token)
    classes.update(name for phrase, name in _PHRASES if phrase in text)
    return classes


def has_typo_keyword(tokens: Sequence[str]) -> bool:
    return any(closest_keyword(token) for token in tokens if len(token) >= MIN_LENGTH)
