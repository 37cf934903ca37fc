"""Fusion of arm scores: pure functions, literal data."""

from __future__ import annotations

import pytest

from retrieval.fusion import (
    EPSILON,
    ArmScores,
    candidates,
    fuse,
    positive,
    ranked,
    rrf_fusion,
    score_fusion,
    zscores,
)


def test_it_computes_z_scores_and_respects_the_floor() -> None:
    assert zscores([1.0, 2.0, 3.0]) == pytest.approx([-1.2247, 0.0, 1.2247], abs=1e-4)
    # a spread below the floor is noise: divided by the floor instead of blown up to 1
    assert zscores([0.50, 0.51], sd_floor=0.1) == pytest.approx([-0.05, 0.05])
    assert zscores([4.0, 4.0]) == [0.0, 0.0]
    assert zscores([]) == []


def test_it_fuses_weighted_z_scores_with_zero_for_unmatched_text() -> None:
    semantic = ArmScores("semantic", 0.5, {"a": 0.9, "b": 0.5, "c": 0.1})
    text = ArmScores("fts_en", 0.5, {"b": 6.0})  # a and c did not match: BM25 0
    fused = score_fusion([semantic, text])
    # semantic z: a 1.2247, b 0, c -1.2247; text column [0, 6, 0] -> z -0.7071, 1.4142, -0.7071
    assert fused["a"] == pytest.approx(0.5 * 1.2247 + 0.5 * -0.7071, abs=1e-4)
    assert fused["b"] == pytest.approx(0.5 * 0.0 + 0.5 * 1.4142, abs=1e-4)
    assert fused["c"] == pytest.approx(0.5 * -1.2247 + 0.5 * -0.7071, abs=1e-4)
    assert ranked(fused) == ["b", "a", "c"]


def test_it_gives_a_candidate_missing_from_the_semantic_pool_the_pools_lowest_cosine() -> None:
    semantic = ArmScores("semantic", 1.0, {"a": 0.8, "b": 0.4})
    text = ArmScores("fts_en", 0.0, {"z": 3.0})  # weight 0: contributes nothing
    fused = score_fusion([semantic, text])
    # z of [0.8, 0.4, 0.4 (imputed)]: b and z tie at the floor
    assert fused["b"] == pytest.approx(fused["z"])
    assert fused["a"] > fused["b"]


def test_it_counts_a_large_lead_more_than_rrf_does() -> None:
    # arm 1 sees a far ahead; arm 2 barely prefers b: score fusion keeps a first, RRF ties them
    arm1 = ArmScores("semantic", 0.5, {"a": 0.95, "b": 0.30, "c": 0.29, "d": 0.28})
    arm2 = ArmScores("fts_en", 0.5, {"b": 5.1, "a": 5.0, "c": 0.1, "d": 0.1})
    assert ranked(score_fusion([arm1, arm2]))[0] == "a"
    rrf = rrf_fusion([arm1, arm2], k=60)
    assert rrf["a"] == pytest.approx(rrf["b"])


def test_it_computes_weighted_rrf() -> None:
    arm1 = ArmScores("semantic", 0.6, {"a": 0.9, "b": 0.8})
    arm2 = ArmScores("fts_en", 0.4, {"b": 2.0})
    fused = rrf_fusion([arm1, arm2], k=10)
    assert fused == pytest.approx({"a": 0.6 / 11, "b": 0.6 / 12 + 0.4 / 11})


def test_it_shifts_fused_scores_positive_without_pinning_the_last_one_to_zero() -> None:
    assert positive({"a": 2.0, "b": -3.0}) == pytest.approx({"a": 5.0 + EPSILON, "b": EPSILON})
    # a small spread: shifted by at least one standard deviation, so gravity can still lift b
    shifted = positive({"a": 0.3, "b": -0.3})
    assert shifted["b"] == pytest.approx(0.7 + EPSILON)
    assert 2 * shifted["b"] > shifted["a"]
    assert positive({}) == {}


def test_it_ranks_ties_by_id_and_keeps_candidates_in_first_seen_order() -> None:
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]
    arms = [ArmScores("semantic", 1, {"x": 1.0, "y": 0.5}), ArmScores("title", 1, {"z": 1.0})]
    assert candidates(arms) == ["x", "y", "z"]


def test_it_fuses_by_the_configured_method() -> None:
    arms = [ArmScores("semantic", 1.0, {"a": 0.9, "b": 0.1})]
    assert fuse(arms, method="rrf", k=60) == pytest.approx({"a": 1 / 61, "b": 1 / 62})
    assert ranked(fuse(arms, method="score")) == ["a", "b"]
    assert min(fuse(arms, method="score").values()) > 0
