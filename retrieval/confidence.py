"""How sure retrieval is, from signals that mean the same on every corpus.

Raw RRF sums depend on how many arms fired and on pool sizes, so they cannot be thresholded.
Cosine similarity of the best block and the share of query terms the top blocks contain can.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CONFIDENT = "confident"
LOW = "low_confidence"
NONE = "no_relevant_blocks_found"

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
# Words that carry no topic in questions (English and German); kept short on purpose.
_STOP_TEXT = """
the and for are but not you your with have has had was were what when where which who why how
did does this that these those from they them their there then than into about would could
should will can any all some more most other our out over such only own same very just also
been being its it's i'm me my mine we us
der die das und oder aber nicht ein eine einer eines dem den des ist sind war waren wie was wer
wann warum welche welcher welches mit für von auf aus bei nach über unter ich du er sie es wir
ihr mein dein sein unser euer habe hat hatte haben wird werden kann können
"""
STOPWORDS = frozenset(_STOP_TEXT.split())

# Thresholds for all-MiniLM-L6-v2 cosine; multilingual e5 rescales them (issue 6).
COS_CONFIDENT = 0.45
COS_SUPPORTED = 0.30
COS_FLOOR = 0.20


def terms(text: str) -> list[str]:
    return [w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS]


def coverage(query: str, texts: Sequence[str]) -> float:
    """Share of the query's topic terms found (by a 5-letter stem) in the given texts."""
    wanted = {t[:5] for t in terms(query)}
    if not wanted:
        return 0.0
    have = {t[:5] for text in texts for t in terms(text)}
    return len(wanted & have) / len(wanted)


def judge(*, hits: int, best_cosine: float | None, term_coverage: float) -> str:
    if hits == 0:
        return NONE
    if best_cosine is None:  # lexical only: no vectors yet, or the embedder failed open
        return CONFIDENT if term_coverage >= 0.6 else LOW if term_coverage >= 0.3 else NONE
    if best_cosine >= COS_CONFIDENT or (best_cosine >= COS_SUPPORTED and term_coverage >= 0.5):
        return CONFIDENT
    if best_cosine < COS_FLOOR and term_coverage < 0.34:
        return NONE
    return LOW
