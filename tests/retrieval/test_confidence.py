"""The confidence verdict's rule on the evidence it is given (pure: no database)."""

from __future__ import annotations

from retrieval import confidence as c


def _arms(*cosines: float, lexical: int = 0) -> list[dict[str, dict[str, float]]]:
    arms: list[dict[str, dict[str, float]]] = [{"semantic": {"score": x}} for x in cosines]
    for a in arms[:lexical]:
        a["fts_en"] = {"score": 0.1}
    return arms


def test_the_gap_is_the_best_cosine_over_the_fifth_to_tenth() -> None:
    gap, lexical = c.pool_evidence(_arms(0.8, 0.5, 0.5, 0.5, 0.3, 0.3, 0.2, 0.2, 0.1, 0.1, 0.0))
    assert gap == round(0.8 - 0.2, 4) and lexical == 0


def test_a_pool_without_a_fifth_candidate_measures_the_best_against_the_usual_level() -> None:
    """Not against the other candidates: a note and the fact extracted from it both answer."""
    assert c.pool_evidence(_arms(0.82, 0.81, lexical=2)) == (round(0.82 - 0.25, 4), 2)
    assert c.pool_evidence(_arms(0.7, 0.1, 0.1, 0.1, lexical=1)) == (round(0.7 - 0.25, 4), 1)
    assert c.pool_evidence(_arms(0.7)) == (round(0.7 - c.BACKGROUND_DEFAULT, 4), 0)
    assert c.pool_evidence(_arms(0.7, 0.5, 0.5, 0.5, 0.3)) == (0.4, 0)
    assert c.pool_evidence([{"fts_en": {"score": 1.0}}]) == (None, 1)


def _judge(gap: float | None, lexical: int, coverage: float, hits: int = 5) -> str:
    return c.judge(c.Evidence(hits, coverage, gap, lexical))


def test_no_word_matched_and_nothing_stands_out_is_nothing_relevant() -> None:
    assert _judge(0.25, lexical=0, coverage=0.0) == c.NONE


def test_confident_needs_a_matched_word_a_standout_and_coverage() -> None:
    assert _judge(0.5, lexical=3, coverage=1.0) == c.CONFIDENT
    assert _judge(0.5, lexical=0, coverage=1.0) == c.LOW  # a standout by meaning alone
    assert _judge(0.2, lexical=3, coverage=1.0) == c.LOW  # every block alike
    assert _judge(0.5, lexical=3, coverage=0.4) == c.LOW  # half the question unanswered


def test_no_hits_or_no_vectors() -> None:
    assert _judge(0.9, lexical=3, coverage=1.0, hits=0) == c.NONE
    assert _judge(None, lexical=3, coverage=0.8) == c.CONFIDENT
    assert _judge(None, lexical=1, coverage=0.0) == c.NONE
