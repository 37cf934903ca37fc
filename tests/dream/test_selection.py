"""Checks on proposed links and the per-cycle cap with type diversity (dream.selection)."""

from __future__ import annotations

from dream.link_typing import Proposal
from dream.selection import check, checked, select
from tests.dream.test_typing import cand, src

A = "00000000-0000-0000-0000-00000000000a"  # the source, newer
B = "00000000-0000-0000-0000-00000000000b"  # the candidate, older


def prop(a: str, b: str, cls: str, conf: float = 0.8) -> Proposal:
    return Proposal(a, b, cls, conf, conf)


def test_it_accepts_supersedes_only_from_newer_to_older() -> None:
    cands = {B: cand()}
    assert check(prop(A, B, "supersedes"), src(), cands)[1] == "ok"
    assert check(prop(B, A, "supersedes"), src(), cands) == (None, "supersedes_not_newer")


def test_it_needs_one_category_and_similar_titles_to_supersede() -> None:
    assert check(prop(A, B, "supersedes"), src(), {B: cand(category="x")})[1] == (
        "supersedes_not_similar"
    )
    assert check(prop(A, B, "supersedes"), src(), {B: cand(tsim=0.2)})[1] == (
        "supersedes_not_similar"
    )


def test_it_accepts_causal_only_from_older_to_newer() -> None:
    cands = {B: cand()}
    assert check(prop(B, A, "causal"), src(), cands)[1] == "ok"
    assert check(prop(A, B, "causal"), src(), cands) == (None, "causal_not_older")


def test_it_rejects_other_scopes_unknown_blocks_and_self_links() -> None:
    assert check(prop(A, B, "topical"), src(), {B: cand(scope_id=2)}) == (None, "scope")
    assert check(prop(A, "x", "topical"), src(), {B: cand()}) == (None, "unknown_block")
    assert check(prop(A, A, "topical"), src(), {B: cand()}) == (None, "self")


def test_it_stores_undirected_links_once_and_recurrence_in_time_order() -> None:
    cands = {B: cand()}
    topical, _ = check(prop(B, A, "topical"), src(), cands)
    recurrent, _ = check(prop(A, B, "recurrent"), src(), cands)
    assert (topical.source_id, topical.target_id) == (A, B)  # type: ignore[union-attr]
    assert (recurrent.source_id, recurrent.target_id) == (B, A)  # type: ignore[union-attr]


def test_it_keeps_the_most_confident_duplicate_and_counts_rejections() -> None:
    ok, rejected = checked(
        [prop(A, B, "topical", 0.6), prop(B, A, "topical", 0.9), prop(A, B, "causal")],
        src(),
        {B: cand()},
    )
    assert [(p.link_class, p.confidence) for p in ok] == [("topical", 0.9)]
    assert rejected == {"causal_not_older": 1}


def test_it_caps_a_cycle_and_breaks_ties_by_type_diversity() -> None:
    ids = [f"00000000-0000-0000-0000-0000000000{i:02d}" for i in range(10)]
    proposals = [prop(A, ids[i], "topical", 0.9) for i in range(4)]
    proposals += [prop(A, ids[4], "factual", 0.9), prop(A, ids[5], "causal", 0.9)]
    proposals += [prop(A, ids[6], "factual", 0.95)]
    chosen = select(proposals, 5)
    assert [p.link_class for p in chosen] == ["factual", "causal", "topical", "factual", "topical"]
    assert len(select(proposals, 50)) == 7
