"""Fusing the arms' scores into one score per candidate: pure functions over literal data.

Two methods (`CTX_FUSION`):

* ``score`` (default): each arm's raw scores become z-scores over the whole candidate set, and
  the fused score is their weighted mean. A candidate an arm did not return gets that arm's
  floor (0 for full text and title, where "no match" is the true score; the lowest pooled
  cosine for the semantic arm, whose pool is cut by rank). Scores keep their spread, so a
  block far ahead of the rest stays far ahead, and later multiplicative stages (gravity) act on
  a scale where "twice as good" means something. Measured on LongMemEval_S
  (docs/architecture.md, "Retrieval") it beats RRF at every k; it is the convex combination of
  normalised scores that Bruch et al. (2023, "An Analysis of Fusion Functions for Hybrid
  Retrieval") found better than RRF.
* ``rrf``: weighted reciprocal rank fusion, ``sum(w / (k + rank))``; ranks only, so one arm's
  outlier cannot dominate, at the price of flattening every margin.

Fused scores are shifted to be positive (the worst candidate sits at a small epsilon), because
gravity multiplies them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

EPSILON = 1e-6
MIN_SHIFT = 1.0
# Arms whose missing candidates truly score zero: they did not match at all.
ZERO_FLOOR_ARMS = frozenset({"fts_en", "fts_de", "fts_simple", "title"})
# Spreads below these are noise, not signal (cosine, BM25 and trigram units): z-scores divide by
# at least this much, so near-identical candidates are not blown up to a spread of 1 that would
# drown every later stage. Real candidate sets spread more (LongMemEval_S, 5th percentile:
# cosine 0.08, median 0.11; BM25 1.3), where the floors change next to nothing.
SD_FLOOR = {"semantic": 0.1, "fts_en": 0.5, "fts_de": 0.5, "fts_simple": 0.5, "title": 0.1}


@dataclass(frozen=True)
class ArmScores:
    """One arm's candidates, best first, with raw scores (higher is better)."""

    arm: str
    weight: float
    scores: Mapping[str, float]


def floor_of(arm: ArmScores) -> float:
    if arm.arm in ZERO_FLOOR_ARMS or not arm.scores:
        return 0.0
    return min(arm.scores.values())


def zscores(values: Sequence[float], sd_floor: float = 0.0) -> list[float]:
    """Standard scores, dividing by at least `sd_floor`; zeros when nothing varies."""
    n = len(values)
    if n == 0:
        return []
    mean = sum(values) / n
    sd = max(math.sqrt(sum((v - mean) ** 2 for v in values) / n), sd_floor)
    if sd <= 1e-9:
        return [0.0] * n
    return [(v - mean) / sd for v in values]


def candidates(arms: Sequence[ArmScores]) -> list[str]:
    """Every id any arm returned, in first-seen order (deterministic)."""
    return list(dict.fromkeys(i for arm in arms for i in arm.scores))


def score_fusion(arms: Sequence[ArmScores], ids: Sequence[str] | None = None) -> dict[str, float]:
    """Weighted mean of per-arm z-scores over `ids` (default: every candidate), unshifted."""
    ids = list(ids) if ids is not None else candidates(arms)
    active = [a for a in arms if a.weight > 0]
    total = sum(a.weight for a in active)
    fused = dict.fromkeys(ids, 0.0)
    if not ids or total <= 0:
        return fused
    for arm in active:
        floor = floor_of(arm)
        column = [arm.scores.get(i, floor) for i in ids]
        for i, z in zip(ids, zscores(column, SD_FLOOR.get(arm.arm, 0.0)), strict=True):
            fused[i] += arm.weight * z / total
    return fused


def rrf_fusion(arms: Sequence[ArmScores], k: int = 60) -> dict[str, float]:
    """Weighted reciprocal rank fusion; ranks come from each arm's own order of scores."""
    fused: dict[str, float] = {}
    for arm in arms:
        if arm.weight <= 0:
            continue
        ranked = sorted(arm.scores, key=lambda i: (-arm.scores[i], i))
        for rank, i in enumerate(ranked, start=1):
            fused[i] = fused.get(i, 0.0) + arm.weight / (k + rank)
    return fused


def positive(scores: Mapping[str, float], min_shift: float = MIN_SHIFT) -> dict[str, float]:
    """Shift fused z-scores above zero, so multiplicative stages (gravity) only ever lift.

    The shift is the lowest score's distance below zero, but at least `min_shift` standard
    deviations: in a small candidate set the worst candidate is not pinned at zero, where no
    multiplier could lift it.
    """
    if not scores:
        return {}
    shift = max(-min(scores.values()), min_shift)
    return {i: max(s + shift, 0.0) + EPSILON for i, s in scores.items()}


def fuse(arms: Sequence[ArmScores], *, method: str = "score", k: int = 60) -> dict[str, float]:
    """Fused, positive scores by the configured method."""
    if method == "rrf":
        return rrf_fusion(arms, k)
    return positive(score_fusion(arms))


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids best first; ties broken by id so the order never depends on dict order."""
    return sorted(scores, key=lambda i: (-scores[i], i))
