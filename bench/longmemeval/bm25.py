"""BM25 baselines, computed in-process on the same per-question corpora.

* ``bm25``: ``rank_bm25.BM25Okapi`` on lower-cased ``\\w+`` tokens; ties keep corpus order.
* ``flat-bm25``: LongMemEval's own ``flat-bm25`` retriever, kept bit for bit so the harness can be
  checked against the reference run of the eval README §4.4: ``str.split(" ")`` (case-sensitive,
  empty tokens included) and ``np.argsort(scores)[::-1]`` as the ranking, ties included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from bench.longmemeval.data import Document

Ranker = Callable[[str, Sequence[Document]], list[str]]
"""Takes the query and the question's documents; returns document ids, best first."""

_WORD = re.compile(r"\w+")


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def flat_tokens(text: str) -> list[str]:
    return text.split(" ")


def bm25_scores(query_tokens: list[str], corpus_tokens: list[list[str]]) -> np.ndarray:
    if not any(corpus_tokens):
        # BM25Okapi divides by the mean document length; an all-empty corpus has none.
        return np.zeros(len(corpus_tokens))
    return np.asarray(BM25Okapi(corpus_tokens).get_scores(query_tokens), dtype=float)


def rank_bm25_words(query: str, documents: Sequence[Document]) -> list[str]:
    scores = bm25_scores(word_tokens(query), [word_tokens(doc.text) for doc in documents])
    # A stable sort on the negated score: ties stay in corpus order.
    order = np.argsort(-scores, kind="stable")
    return [documents[i].id for i in order]


def rank_flat_bm25(query: str, documents: Sequence[Document]) -> list[str]:
    scores = bm25_scores(flat_tokens(query), [flat_tokens(doc.text) for doc in documents])
    order = np.argsort(scores)[::-1]
    return [documents[i].id for i in order]


BASELINES: dict[str, Ranker] = {
    "bm25": rank_bm25_words,
    "flat-bm25": rank_flat_bm25,
}
