"""The shown score and its floor (retrieval/relevance.py): literal data."""

from __future__ import annotations

from retrieval.relevance import floored, shares
from retrieval.search import Hit


def _hits(*scores: float) -> list[Hit]:
    return [Hit(id=str(i), score=s, fused=s) for i, s in enumerate(scores)]


def test_it_shows_each_score_as_a_share_of_the_best() -> None:
    assert shares([2.0, 1.0, 0.5]) == [1.0, 0.5, 0.25]
    assert shares([0.40 / 61, 0.25 / 62]) == [1.0, round((0.25 / 62) / (0.40 / 61), 6)]


def test_it_never_shows_a_score_outside_0_to_1() -> None:
    assert shares([1.000001]) == [1.0]
    assert shares([3.0, 3.0000000001, -0.5]) == [1.0, 1.0, 0.0]
    assert shares([0.0, 0.0]) == [0.0, 0.0] and shares([]) == []


def test_it_keeps_the_hits_at_or_above_the_floor_in_order() -> None:
    hits = _hits(2.0, 1.5, 1.0, 0.2)
    kept = floored(hits, 0.5)
    assert [h.id for h in kept] == ["0", "1", "2"]
    assert [h.relevance for h in kept] == [1.0, 0.75, 0.5]
    assert [h.id for h in floored(_hits(2.0, 0.2))] == ["0", "1"]
    assert floored([], 0.5) == []
