"""The words of a source's chunks (pure): per word, in how many chunks it occurs; the
distinctive terms (in at least 2 chunks and at most 40 % of them) suggest queries."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

WORD = re.compile(r"[^\W_]{3,64}")
MIN_CHUNKS = 2
MAX_SHARE = 0.4
TERMS_SHOWN = 20
# Function words of English and German: never distinctive whatever their spread.
_FUNCTION_WORDS = """
    the and for are but not you all any can had her was one our out day get has him his how
    man new now old see two way who boy did its let put say she too use that with have this
    will your from they know want been good much some time very when come here just like long
    make many more only over such take than them well were what which their there these those
    then into also each other about would could should because while where after before being
    does doing under again further once both same own most between through during above below
    der die das und ist nicht ein eine einer eines einem einen mit auf für von den dem des sich
    auch als wie bei oder aus nach noch nur wenn wird sind war hat kann zum zur über unter"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())


def words(text: str) -> set[str]:
    """The distinct words of a text, lower-cased, letters and digits only, 3-64 long, not
    numbers."""
    return {w for w in WORD.findall(text.lower()) if not w.isdigit()}


def counts(texts: Iterable[str]) -> Counter[str]:
    """Per word, the number of texts it occurs in."""
    found: Counter[str] = Counter()
    for text in texts:
        found.update(words(text))
    return found


def distinctive(found: Counter[str], chunks: int, shown: int = TERMS_SHOWN) -> list[str]:
    """Words in at least 2 chunks and at most 40 % of them, the most widespread first."""
    ceiling = MAX_SHARE * chunks
    kept = [
        (n, w)
        for w, n in found.items()
        if MIN_CHUNKS <= n <= ceiling and w not in STOPWORDS and not w[0].isdigit()
    ]
    kept.sort(key=lambda item: (-item[0], item[1]))
    return [w for _, w in kept[:shown]]


def edit_distance(a: str, b: str, bound: int) -> int:
    """Levenshtein distance, or bound + 1 as soon as it must exceed `bound`."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > bound:
            return bound + 1
        previous = current
    return previous[-1]
