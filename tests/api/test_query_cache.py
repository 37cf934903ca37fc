"""Query vectors are cached by (hash of tenant + text, model): a repeated question is not
embedded again, a comparison question's parts are embedded together and kept too, and one
tenant's question is never answered from another tenant's entry (its speed would tell)."""

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


def _key(text: str, tenant_id: int) -> str:
    return embeddings.cache_key(text, embeddings.get_embedder().name, tenant_id)


def _plant(key: str, text: str) -> None:
    """Put another text's vector under a cached key, and forget the process's copy: only a
    lookup in the table can then make a question find `text`'s block by meaning."""
    row = EmbedCache.objects.get(key=key)
    row.vector = embeddings.get_embedder().embed([text], kind="query")[0]
    row.save()
    embeddings._LRU.clear()


def test_it_answers_a_repeated_question_with_the_cached_vector(cast: Cast) -> None:
    block = cast.owner.store(title="Cluster", content="The Kubernetes cluster upgrade is Friday.")
    cast.owner.store(title="Garden", content="The roses need pruning before the frost.")
    indexing.embed_pending(limit=10)
    question = "what did the gardener say about roses"
    _ask(cast, question)
    _plant(_key(question, cast.acme.id), "Kubernetes cluster upgrade")
    body = _ask(cast, question)
    assert body["sources"][0]["id"] == block["id"]
    assert body["explain"]["hits"][block["id"]]["arms"]["semantic"]["score"] > 0.7


def test_it_keeps_the_vectors_of_a_comparison_questions_parts(cast: Cast) -> None:
    cast.owner.store(title="Kitchen", content="Bought a new coffee maker at the mall.")
    indexing.embed_pending(limit=10)
    body = _ask(cast, "Which happened first, buying the coffee maker or the mixer breaking?")
    parts = body["explain"]["decomposed"]
    assert len(parts) == 2
    assert EmbedCache.objects.filter(key__in=[_key(p, cast.acme.id) for p in parts]).count() == 2


def test_another_tenant_asking_the_same_question_is_not_served_from_the_first_ones_entry(
    cast: Cast,
) -> None:
    question = "what did the gardener say about roses"
    for api in (cast.owner, cast.outsider):
        api.store(title="Cluster", content="The Kubernetes cluster upgrade is Friday.")
        api.store(title="Garden", content="The roses need pruning before the frost.")
    indexing.embed_pending(limit=10)
    _ask(cast, question)
    _plant(_key(question, cast.acme.id), "Kubernetes cluster upgrade")
    status, body = cast.outsider.post("/api/query", {"query": question, "explain": True})
    assert status == 200, body
    # globex's question is embedded for globex: acme's (planted) entry does not steer it
    assert body["sources"][0]["title"] == "Garden"
    assert EmbedCache.objects.filter(key=_key(question, cast.globex.id)).exists()
