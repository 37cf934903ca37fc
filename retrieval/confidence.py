"""How sure retrieval is, from signals that mean the same on every corpus.

Raw fusion scores depend on how many arms fired and on pool sizes, so they cannot be
thresholded. A raw cosine cannot either: MiniLM gives letter soup a cosine of 0.43-0.61 to
conversation text and an unanswerable question 0.40-0.71 to a haystack that does not hold
its answer, as high as real answers (measured, bench/confidence.py). What separates them is
how far the best block stands out of the rest of the candidates (`gap`: the semantic arm's
best cosine minus the mean of its 5th to 10th), whether any query word matched anything
(`lexical`), and the share of the query's topic words the top blocks contain (`coverage`).
The thresholds were chosen on LongMemEval's development half and are reported on its
held-out half (docs/benchmarks.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

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

LEXICAL_ARMS = frozenset({"fts_en", "fts_de", "fts_simple", "title"})
BACKGROUND_RANKS = slice(4, 10)  # the 5th to 10th best cosines: the haystack's usual level
# A pool of fewer than five candidates has no background: the mean 5th-10th cosine of MiniLM
# over haystacks that do not hold the answer was 0.24-0.26 (bench/confidence.py, development
# half). Not the other candidates' mean: in a new user's scope of a few notes they are often
# the answer again (the fact extracted from the note, a paraphrase), and the best standing
# 0.01 above them made an exact answer `low_confidence`.
BACKGROUND_DEFAULT = 0.25


@dataclass(frozen=True)
class Thresholds:
    """Fitted on LongMemEval_S's development half for all-MiniLM-L6-v2 with int8 passage
    vectors (bench/confidence.py fit; 0.37 for fp32 ones, 2026-11-28): confident when the
    best stands out by `gap` and the top blocks hold `coverage` of the query's words; nothing
    relevant when no word matched and the best does not stand out by `none_gap`."""

    gap: float = 0.39
    coverage: float = 0.7
    none_gap: float = 0.34


DEFAULT = Thresholds()


@dataclass(frozen=True)
class Evidence:
    hits: int  # returned to the caller
    coverage: float  # share of the query's topic words in the top five
    gap: float | None  # the best cosine over the candidates' background (None: no vectors)
    lexical: int  # candidates any full-text or title arm found


def pool_evidence(arms: Sequence[Mapping[str, Mapping[str, float]]]) -> tuple[float | None, int]:
    """The gap and the lexical count over every candidate's arms (the whole pool the stages
    ranked, not the page the caller asked for: the verdict does not depend on `limit`)."""
    cosines = sorted((a["semantic"]["score"] for a in arms if "semantic" in a), reverse=True)
    lexical = sum(1 for a in arms if LEXICAL_ARMS.intersection(a))
    if not cosines:
        return None, lexical
    rest = cosines[BACKGROUND_RANKS]
    background = fmean(rest) if rest else BACKGROUND_DEFAULT
    return round(cosines[0] - background, 4), lexical


def terms(text: str) -> list[str]:
    return [w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS]


def first_match(query: str, text: str) -> int | None:
    """Where `text` first holds one of the query's topic terms (by a 5-letter stem)."""
    wanted = {t[:5] for t in terms(query)}
    for m in _WORD.finditer(text):
        word = m.group().lower()
        if word not in STOPWORDS and word[:5] in wanted:
            return m.start()
    return None


def coverage(query: str, texts: Sequence[str]) -> float:
    """Share of the query's topic terms found (by a 5-letter stem) in the given texts."""
    wanted = {t[:5] for t in terms(query)}
    if not wanted:
        return 0.0
    have = {t[:5] for text in texts for t in terms(text)}
    return len(wanted & have) / len(wanted)


def judge(e: Evidence, t: Thresholds = DEFAULT) -> str:
    if e.hits == 0:
        return NONE
    if e.gap is None:  # lexical only: no vectors yet, or the embedder failed open
        return CONFIDENT if e.coverage >= 0.6 else LOW if e.coverage >= 0.3 else NONE
    if e.lexical == 0 and e.gap < t.none_gap:
        return NONE
    if e.lexical > 0 and e.gap >= t.gap and e.coverage >= t.coverage:
        return CONFIDENT
    return LOW
