"""Replace semantics of a batch (dream.replace.replay) on literal data: the net effect must be
what writing the cycles one after the other would give."""

from __future__ import annotations

from dream.link_typing import Proposal
from dream.replace import CyclePlan, Existing, Key, rejudged, replay


def prop(s: str, t: str, cls: str = "topical", conf: float = 0.8) -> Proposal:
    return Proposal(s, t, cls, conf, conf)


def plan(
    block: str, chosen: list[Proposal], evaluated: str, valid: tuple[Key, ...] = ()
) -> CyclePlan:
    keys = {(p.source_id, p.target_id, p.link_class) for p in chosen} | set(valid)
    return CyclePlan(block, chosen, frozenset(keys), frozenset(evaluated))


def dream(s: str, t: str, cls: str = "topical", by: str | None = None) -> Existing:
    return Existing((s, t, cls), True, by or s)


def test_it_creates_refreshes_and_removes_like_one_cycle() -> None:
    net = replay(
        [plan("a", [prop("a", "b"), prop("a", "c")], "bcd")],
        [dream("a", "b"), dream("a", "d"), dream("a", "e", by="a")],
    )
    assert set(net.upserts) == {("a", "b", "topical"), ("a", "c", "topical")}
    assert net.deletes == {("a", "d", "topical"), ("a", "e", "topical")}
    counts = net.counts["a"]
    assert (counts.created, counts.updated, len(counts.removed)) == (1, 1, 2)


def test_it_lets_a_later_cycle_remove_what_an_earlier_one_created() -> None:
    # b re-judges its pair with a (a is among its candidates) and finds it no longer valid
    net = replay([plan("a", [prop("a", "b")], "b"), plan("b", [prop("b", "c")], "ac")], [])
    assert set(net.upserts) == {("b", "c", "topical")}
    assert net.deletes == set()  # created and gone within the batch: nothing to delete
    assert net.counts["a"].created == 1 and net.counts["b"].removed == [("a", "b", "topical")]


def test_it_gives_a_link_to_the_last_cycle_that_proposed_it() -> None:
    first, last = prop("a", "b", conf=0.7), prop("a", "b", conf=0.9)
    net = replay([plan("a", [first], "b"), plan("b", [last], "a")], [])
    assert net.upserts[("a", "b", "topical")] == (last, "b")
    assert (net.counts["a"].created, net.counts["b"].updated) == (1, 1)


def test_it_never_touches_pinned_or_foreign_links() -> None:
    pinned = Existing(("a", "b", "topical"), False, "a")
    manual = Existing(("a", "c", "factual"), False, None)
    net = replay([plan("a", [prop("a", "b"), prop("a", "d")], "bc")], [pinned, manual])
    assert set(net.upserts) == {("a", "d", "topical")} and net.deletes == set()
    assert (net.counts["a"].created, net.counts["a"].updated) == (1, 0)


def test_it_keeps_valid_links_the_cap_left_out() -> None:
    cut = ("a", "c", "topical")
    net = replay([plan("a", [prop("a", "b")], "bc", valid=(cut,))], [dream(*cut[:2])])
    assert net.deletes == set() and net.counts["a"].removed == []


def test_it_replaces_nothing_for_a_cycle_without_proposals() -> None:
    net = replay([plan("a", [], "bc")], [dream("a", "b"), dream("a", "c")])
    assert (net.upserts, net.deletes) == ({}, set())
    assert rejudged([plan("a", [], "bc")], [dream("a", "b")]) == set()


def test_it_names_the_links_a_batch_rejudges() -> None:
    old = [dream("a", "b"), dream("x", "a", by="a"), dream("x", "y"), dream("a", "z", by="q")]
    assert rejudged([plan("a", [prop("a", "b")], "b")], old) == {
        ("a", "b", "topical"),
        ("x", "a", "topical"),
    }
