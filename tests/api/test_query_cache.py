"""Query vectors are cached by (hash of prefix + text, model): a repeated question is not
embedded again, and a comparison question's parts are embedded together and kept too."""

from __future__ import annotations

import pytest

from retrieval import embeddings, indexing
from retrieval.models import EmbedCache
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _ask(cast: Cast, query: str) -> dict:
    status, body = cast.owner.post("/api/query", {"query": query, "explain": True})
    assert status == 200, body
    return body


def _key(text: str) -> str:
    return embeddings.cache_key(text, embeddings.get_embedder().name)


def test_it_answers_a_repeated_question_with_the_cached_vector(cast: Cast) -> None:
    block = cast.owner.store(title="Cluster", content="The Kubernetes cluster upgrade is Friday.")
    cast.owner.store(title="Garden", content="The roses need pruning before the frost.")
    indexing.embed_pending(limit=10)
    question = "what did the gardener say about roses"
    _ask(cast, question)
    row = EmbedCache.objects.get(key=_key(question))
    # Plant another text's vector under the question's key, and forget the process's copy:
    # only a lookup in the table can make the question find the cluster note by meaning.
    row.vector = embeddings.get_embedder().embed(["Kubernetes cluster upgrade"], kind="query")[0]
    row.save()
    embeddings._LRU.clear()
    body = _ask(cast, question)
    assert body["sources"][0]["id"] == block["id"]
    assert body["explain"]["hits"][block["id"]]["arms"]["semantic"]["score"] > 0.7


def test_it_keeps_the_vectors_of_a_comparison_questions_parts(cast: Cast) -> None:
    cast.owner.store(title="Kitchen", content="Bought a new coffee maker at the mall.")
    indexing.embed_pending(limit=10)
    body = _ask(cast, "Which happened first, buying the coffee maker or the mixer breaking?")
    parts = body["explain"]["decomposed"]
    assert len(parts) == 2
    assert EmbedCache.objects.filter(key__in=[_key(p) for p in parts]).count() == 2
