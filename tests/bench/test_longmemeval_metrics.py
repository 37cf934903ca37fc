"""The LongMemEval metrics, on literal data (hand-computed expectations)."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from bench.longmemeval.bm25 import rank_bm25_words, rank_flat_bm25, word_tokens
from bench.longmemeval.data import Document, Question, session_of_turn
from bench.longmemeval.metrics import (
    QuestionScore,
    aggregate,
    dcg,
    effective_k,
    metric_names,
    ndcg_any_at_k,
    percentile,
    recall_all_at_k,
    recall_any_at_k,
    reciprocal_rank,
    score_question,
    score_ranking,
    score_turns_as_sessions,
    session_labels,
)

DAY = datetime(2023, 5, 1)


def test_it_counts_recall_any_and_all_within_the_top_k() -> None:
    ranked = ["x", "a", "y", "b"]
    assert recall_any_at_k(ranked, {"a", "b"}, 2) == 1.0
    assert recall_all_at_k(ranked, {"a", "b"}, 2) == 0.0
    assert recall_all_at_k(ranked, {"a", "b"}, 4) == 1.0
    assert recall_any_at_k(ranked, {"a"}, 1) == 0.0


def test_it_scores_zero_when_no_gold_is_ranked() -> None:
    ranked = ["x", "y", "z"]
    assert recall_any_at_k(ranked, {"a"}, 10) == 0.0
    assert recall_all_at_k(ranked, {"a"}, 10) == 0.0
    assert ndcg_any_at_k(ranked, {"a"}, 10) == 0.0
    assert reciprocal_rank(ranked, {"a"}) == 0.0


def test_it_accepts_k_larger_than_the_list() -> None:
    ranked = ["x", "a"]
    assert recall_all_at_k(ranked, {"a"}, 50) == 1.0
    assert ndcg_any_at_k(ranked, {"a"}, 50) == 1.0  # rank 2 is undiscounted officially
    assert recall_all_at_k(ranked, {"a", "missing"}, 50) == 0.0


def test_it_follows_the_official_code_on_an_empty_gold_set() -> None:
    assert recall_all_at_k(["x"], set(), 5) == 1.0
    assert recall_any_at_k(["x"], set(), 5) == 0.0
    assert ndcg_any_at_k(["x"], set(), 5) == 0.0


def test_it_uses_the_official_dcg_with_ranks_one_and_two_undiscounted() -> None:
    assert dcg([]) == 0.0
    assert dcg([1.0, 1.0]) == 2.0
    assert dcg([0.0, 0.0, 1.0]) == pytest.approx(1 / math.log2(3))
    # The textbook formula would give 1/log2(3) = 0.63 for a single hit at rank 2.
    assert ndcg_any_at_k(["x", "a"], {"a"}, 10) == 1.0


def test_it_normalises_ndcg_by_the_ideal_of_min_relevant_and_k() -> None:
    # hits at ranks 1 and 3: (1 + 1/log2 3) / (1 + 1)
    assert ndcg_any_at_k(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx(
        (1 + 1 / math.log2(3)) / 2
    )
    # three relevant items but k = 2: the ideal holds two hits
    assert ndcg_any_at_k(["a", "b"], {"a", "b", "c"}, 2) == 1.0
    # n_relevant overrides len(gold): four relevant corpus items, one hit at rank 1
    assert ndcg_any_at_k(["a", "x"], {"a"}, 10, n_relevant=4) == pytest.approx(
        1 / (1 + 1 + 1 / math.log2(3) + 1 / math.log2(4))
    )


def test_it_takes_the_reciprocal_rank_of_the_first_gold_item() -> None:
    assert reciprocal_rank(["x", "y", "a", "b"], {"a", "b"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(["b"], {"a", "b"}) == 1.0


def test_it_scores_a_ranking_under_every_metric_name() -> None:
    scores = score_ranking(["x", "a", "y", "b"], {"a", "b"}, [1, 3])
    assert list(scores) == metric_names([1, 3])
    assert scores["recall_any@3"] == 1.0
    assert scores["recall_all@3"] == 0.0
    assert scores["ndcg_any@1"] == 0.0
    assert scores["mrr"] == 0.5


def test_it_ignores_duplicate_non_gold_ids_in_recall() -> None:
    assert recall_all_at_k(["x", "x", "a"], {"a"}, 3) == 1.0


def test_it_labels_only_gold_turns_with_their_evidence_session() -> None:
    ranked = ["s1#0", "s1#2", "s2#0", "s3#4"]
    labels = session_labels(ranked, session_of_turn, {"s1#2"})
    assert labels == ["s1~noans", "s1", "s2", "s3"]


def test_it_extends_k_until_k_distinct_sessions_are_seen() -> None:
    assert effective_k(["s1", "s1", "s2", "s3"], 2) == 3
    assert effective_k(["s1", "s2", "s3"], 2) == 2
    assert effective_k(["s1", "s1", "s1"], 2) == 4  # never reached: one past the end
    assert effective_k(["s1"], 5) == 5


def test_it_scores_turns_as_sessions_like_the_official_turn2session() -> None:
    # gold turns: s1#2 and s2#0 (sessions s1, s2); s1#0 is a non-evidence turn of s1.
    ranked = ["s1#0", "s3#1", "s3#3", "s1#2", "s4#1", "s2#0"]
    scores = score_turns_as_sessions(ranked, session_of_turn, {"s1#2", "s2#0"}, [2, 3])
    # labels: s1~noans, s3, s3, s1, s4, s2 -> k=2 stops at 2, k=3 extends to 4.
    assert scores["recall_any@2"] == 0.0
    assert scores["recall_any@3"] == 1.0
    assert scores["recall_all@3"] == 0.0
    # k=3 (cut 4): one hit at rank 4, ideal = two hits of the two gold turns
    assert scores["ndcg_any@3"] == pytest.approx((1 / math.log2(4)) / 2)
    # distinct labels: s1~noans, s3, s1 -> first gold at 3
    assert scores["mrr"] == pytest.approx(1 / 3)


def test_it_scores_a_question_at_each_level_of_its_granularity() -> None:
    turns = (Document("s1#0", "s1", "a", DAY), Document("s2#1", "s2", "b", DAY))
    question = Question(
        question_id="q",
        question_type="multi-session",
        question="?",
        question_date=DAY,
        sessions=(Document("s1", "s1", "a", DAY), Document("s2", "s2", "b", DAY)),
        turns=turns,
        gold_sessions=frozenset({"s2"}),
        gold_turns=frozenset({"s2#1"}),
    )
    session = score_question(question, "session", ["s1", "s2"], [1])
    assert list(session) == ["session"]
    assert session["session"]["mrr"] == 0.5
    turn = score_question(question, "turn", ["s2#1", "s1#0"], [1])
    assert list(turn) == ["turn", "session"]
    assert turn["turn"]["recall_all@1"] == 1.0
    assert turn["session"]["recall_all@1"] == 1.0


def test_it_aggregates_overall_and_per_type_in_the_readme_order() -> None:
    scores = [
        QuestionScore("q1", "temporal-reasoning", {"mrr": 1.0}),
        QuestionScore("q2", "single-session-user", {"mrr": 0.5}),
        QuestionScore("q3", "temporal-reasoning", {"mrr": 0.0}),
    ]
    summary = aggregate(scores)
    assert summary["overall"] == {"n": 3, "metrics": {"mrr": 0.5}}
    assert list(summary["by_type"]) == ["single-session-user", "temporal-reasoning"]
    assert summary["by_type"]["temporal-reasoning"] == {"n": 2, "metrics": {"mrr": 0.5}}


def test_it_interpolates_percentiles_like_numpy() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None


def _docs(*texts: str) -> list[Document]:
    return [Document(f"d{i}", f"d{i}", text, DAY) for i, text in enumerate(texts)]


def test_it_breaks_bm25_ties_by_corpus_order() -> None:
    # "apple" is in 2 of 5 documents, so its Okapi IDF is positive; the rest all score 0.
    docs = _docs("apple pie", "banana", "apple pie", "cherry", "date")
    assert rank_bm25_words("Apple!", docs) == ["d0", "d2", "d1", "d3", "d4"]


def test_it_tokenises_flat_bm25_case_sensitively_on_single_spaces() -> None:
    docs = _docs("Apple pie", "apple pie", "pie, apple", "cherry", "date")
    assert rank_flat_bm25("Apple", docs)[0] == "d0"
    assert rank_flat_bm25("pie,", docs)[0] == "d2"
    assert set(rank_flat_bm25("apple", docs)[:2]) == {"d1", "d2"}


def test_it_tokenises_words_lower_case() -> None:
    assert word_tokens("I moved to Berlin, in 2021!") == [
        "i",
        "moved",
        "to",
        "berlin",
        "in",
        "2021",
    ]
