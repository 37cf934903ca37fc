"""The score a caller sees, and the floor (`min_score`) on it: pure functions.

Fused scores only order one query's candidates: z-scores shifted positive (a lone candidate
scores 1 + EPSILON = 1.000001) or RRF sums (about 0.007), with no common scale and no upper
bound. What a caller sees instead is each hit's share of the best hit's score: the best is 1,
every score lies in [0, 1] (rounded to 6 places, clamped, so no floating error shows above 1),
and `min_score` cuts on exactly that number. It is relative: a floor drops the hits far
behind the best, never the best itself; whether anything relevant was found at all is the
query's `confidence`.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.confidence import LEXICAL_ARMS
from retrieval.search import Hit

PLACES = 6


def shares(scores: Sequence[float]) -> list[float]:
    """Each score as a share of the highest, rounded and clamped to [0, 1]; all 0 when no
    score is positive."""
    best = max(scores, default=0.0)
    if best <= 0:
        return [0.0] * len(scores)
    return [min(1.0, max(0.0, round(s / best, PLACES))) for s in scores]


def evidenced(hits: Sequence[Hit], floor: float) -> list[Hit]:
    """The hits that carry evidence: a word of the query matched (a full-text or title arm
    found it) or its cosine reaches `floor`. A hit only the semantic arm found below the floor
    is noise (the arm ranks every block, down to cosines of 0.02). Hits a stage added without
    arms (graph neighbours) keep their place: the stage had its own reason."""
    return [
        h
        for h in hits
        if not h.arms
        or LEXICAL_ARMS.intersection(h.arms)
        or h.arms.get("semantic", {}).get("score", 1.0) >= floor
    ]


def floored(hits: Sequence[Hit], min_score: float | None = None) -> list[Hit]:
    """The hits whose shown score is at least `min_score` (all when None), in their order,
    each with `relevance` set to that shown score."""
    kept = []
    for hit, share in zip(hits, shares([h.score for h in hits]), strict=True):
        hit.relevance = share
        if min_score is None or share >= min_score:
            kept.append(hit)
    return kept
