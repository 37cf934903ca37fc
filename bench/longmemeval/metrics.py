"""Retrieval metrics of the official LongMemEval protocol (pure functions, literal-data tested).

They mirror ``src/retrieval/eval_utils.py`` of xiaowu0162/LongMemEval:

* ``recall_any@k``: some gold item is in the top k; ``recall_all@k``: every gold item is.
  With an empty gold set ``recall_all`` is 1 and ``recall_any`` 0, as there; such questions
  are not scored (see ``data.is_scorable``).
* ``ndcg_any@k``: binary relevance and the official DCG, ``rel_1 + sum_{i>=2} rel_i / log2(i)``
  (ranks 1 and 2 are both undiscounted), normalised by the DCG of ``min(n_relevant, k)`` hits.
* ``mrr``: reciprocal rank of the first gold item in the whole ranking (0 when absent); not in
  the official code, used by the reference run of the eval README §4.4.
* Turn → session: ranked turns become session labels and k is extended until k distinct labels
  have been seen. As in the official code a turn counts for its session only when it is a gold
  turn itself: the other turns of an evidence session get a label of their own ("noans" there),
  which is neither gold nor the gold session.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from bench.longmemeval.data import session_of_turn

if TYPE_CHECKING:
    from bench.longmemeval.data import Granularity, Question

NON_EVIDENCE_SUFFIX = "~noans"

# The order the README and the paper list the types in.
QUESTION_TYPES: tuple[str, ...] = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)


def metric_names(ks: Sequence[int]) -> list[str]:
    names = [f"{m}@{k}" for k in ks for m in ("recall_any", "recall_all", "ndcg_any")]
    return [*names, "mrr"]


def recall_any_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    top = set(ranked[:k])
    return float(any(item in top for item in gold))


def recall_all_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    top = set(ranked[:k])
    return float(all(item in top for item in gold))


def dcg(relevances: Sequence[float]) -> float:
    """The official DCG: the first two ranks are undiscounted, rank i >= 2 is divided by log2(i)."""
    if not relevances:
        return 0.0
    return relevances[0] + sum(rel / math.log2(i) for i, rel in enumerate(relevances[1:], 2))


def ndcg_any_at_k(
    ranked: Sequence[str], gold: Collection[str], k: int, n_relevant: int | None = None
) -> float:
    """nDCG@k with binary relevance.

    ``n_relevant`` is the number of relevant items in the whole corpus (it sets the ideal
    ranking); it defaults to ``len(gold)``.
    """
    relevant = len(gold) if n_relevant is None else n_relevant
    ideal = dcg([1.0] * min(relevant, k))
    if ideal == 0:
        return 0.0
    return dcg([1.0 if item in gold else 0.0 for item in ranked[:k]]) / ideal


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str]) -> float:
    for rank, item in enumerate(ranked, 1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def score_ranking(
    ranked: Sequence[str],
    gold: Collection[str],
    ks: Sequence[int],
    n_relevant: int | None = None,
) -> dict[str, float]:
    """All metrics of ``metric_names(ks)`` for one ranked list of ids."""
    scores: dict[str, float] = {}
    for k in ks:
        scores[f"recall_any@{k}"] = recall_any_at_k(ranked, gold, k)
        scores[f"recall_all@{k}"] = recall_all_at_k(ranked, gold, k)
        scores[f"ndcg_any@{k}"] = ndcg_any_at_k(ranked, gold, k, n_relevant)
    scores["mrr"] = reciprocal_rank(ranked, gold)
    return scores


def session_labels(
    ranked_turns: Sequence[str],
    session_of: Callable[[str], str],
    gold_turns: Collection[str],
) -> list[str]:
    """Map ranked turns to session labels the official way.

    A turn maps to its session, except a non-gold turn of a session that holds a gold turn: it
    maps to ``<session>~noans``, so only the gold turns themselves retrieve a gold session.
    """
    evidence_sessions = {session_of(turn) for turn in gold_turns}
    labels = []
    for turn in ranked_turns:
        session = session_of(turn)
        if session in evidence_sessions and turn not in gold_turns:
            session += NON_EVIDENCE_SUFFIX
        labels.append(session)
    return labels


def effective_k(labels: Sequence[str], k: int) -> int:
    """The smallest k' >= k whose top k' holds k distinct labels (capped past the list's end)."""
    seen: set[str] = set()
    for position, label in enumerate(labels, 1):
        seen.add(label)
        if position >= k and len(seen) >= k:
            return position
    return max(k, len(labels) + 1)


def score_turns_as_sessions(
    ranked_turns: Sequence[str],
    session_of: Callable[[str], str],
    gold_turns: Collection[str],
    ks: Sequence[int],
) -> dict[str, float]:
    """Session-level metrics of a turn ranking (the official ``turn2session`` evaluation).

    For each k the cut-off is ``effective_k``; nDCG's ideal counts one relevant item per gold
    turn, as the official code does. MRR is taken over the distinct labels.
    """
    labels = session_labels(ranked_turns, session_of, gold_turns)
    gold_sessions = {session_of(turn) for turn in gold_turns}
    scores: dict[str, float] = {}
    for k in ks:
        cut = effective_k(labels, k)
        scores[f"recall_any@{k}"] = recall_any_at_k(labels, gold_sessions, cut)
        scores[f"recall_all@{k}"] = recall_all_at_k(labels, gold_sessions, cut)
        scores[f"ndcg_any@{k}"] = ndcg_any_at_k(labels, gold_sessions, cut, len(gold_turns))
    scores["mrr"] = reciprocal_rank(list(dict.fromkeys(labels)), gold_sessions)
    return scores


def score_question(
    question: Question, granularity: Granularity, ranked: Sequence[str], ks: Sequence[int]
) -> dict[str, dict[str, float]]:
    """Metrics of one question's ranked document ids, keyed by the level they are scored at.

    A session ranking is scored at level ``session``; a turn ranking at level ``turn`` (turn
    labels) and at level ``session`` (the official turn-to-session mapping).
    """
    if granularity == "session":
        return {"session": score_ranking(ranked, question.gold_sessions, ks)}
    return {
        "turn": score_ranking(ranked, question.gold_turns, ks),
        "session": score_turns_as_sessions(ranked, session_of_turn, question.gold_turns, ks),
    }


@dataclass(frozen=True, slots=True)
class QuestionScore:
    question_id: str
    question_type: str
    metrics: Mapping[str, float]


class GroupSummary(TypedDict):
    n: int
    metrics: dict[str, float]


class Summary(TypedDict):
    overall: GroupSummary
    by_type: dict[str, GroupSummary]


def mean_metrics(scores: Sequence[QuestionScore]) -> GroupSummary:
    names = list(dict.fromkeys(name for score in scores for name in score.metrics))
    means = {name: sum(score.metrics[name] for score in scores) / len(scores) for name in names}
    return {"n": len(scores), "metrics": means}


def aggregate(scores: Sequence[QuestionScore]) -> Summary:
    """Means overall and per question type (types in the README's order, unknown ones last)."""
    by_type: dict[str, list[QuestionScore]] = {}
    for score in scores:
        by_type.setdefault(score.question_type, []).append(score)
    order = sorted(by_type, key=_type_order)
    return {
        "overall": mean_metrics(scores),
        "by_type": {question_type: mean_metrics(by_type[question_type]) for question_type in order},
    }


def percentile(values: Iterable[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation, as numpy's default; None if empty."""
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _type_order(question_type: str) -> tuple[int, str]:
    if question_type in QUESTION_TYPES:
        return (QUESTION_TYPES.index(question_type), question_type)
    return (len(QUESTION_TYPES), question_type)
