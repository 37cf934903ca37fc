"""The Ollama and OpenAI-compatible embedding providers against local fake servers that speak
the documented wire formats."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from retrieval.embedding_base import DimensionMismatch, EmbeddingError, EmbeddingProvider
from retrieval.embeddings_remote import (
    OllamaEmbeddings,
    OpenAIEmbeddings,
    remote_embedder_from_settings,
)
from tests.fake_http import FakeServer, Reply, Seen, json_reply

DIM = 4


def vector_for(text: str, dim: int = DIM) -> list[float]:
    """A recognisable, unnormalised vector: the text's length, then 1s."""
    return [float(len(text))] + [1.0] * (dim - 1)


def ollama(seen: Seen, number: int, dim: int = DIM) -> Reply:
    texts = seen.body["input"]
    return Reply(
        json={"model": seen.body["model"], "embeddings": [vector_for(t, dim) for t in texts]}
    )


def openai(seen: Seen, number: int) -> Reply:
    # Served in reverse order: the provider must sort by `index`.
    items = [
        {"object": "embedding", "index": i, "embedding": vector_for(t)}
        for i, t in enumerate(seen.body["input"])
    ]
    return Reply(json={"object": "list", "data": items[::-1], "model": seen.body["model"]})


def unit(vector: list[float]) -> bool:
    return math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-9)


def test_it_embeds_through_ollama_in_bounded_batches() -> None:
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    with FakeServer(ollama) as server:
        provider = OllamaEmbeddings(model="all-minilm", dim=DIM, base_url=server.url, batch_size=2)
        vectors = provider.embed(texts, kind="passage")
    assert [s.path for s in server.seen] == ["/api/embed"] * 3
    assert [s.body["input"] for s in server.seen] == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert server.seen[0].body["model"] == "all-minilm"
    assert len(vectors) == 5 and all(len(v) == DIM and unit(v) for v in vectors)
    # Order kept: the first component grows with the text's length.
    assert [round(v[0], 6) for v in vectors] == sorted(round(v[0], 6) for v in vectors)
    assert isinstance(provider, EmbeddingProvider) and provider.name == "ollama:all-minilm"


def test_it_adds_the_task_prefixes_a_model_family_expects() -> None:
    with FakeServer(ollama) as server:
        provider = OllamaEmbeddings(model="nomic-embed-text", dim=DIM, base_url=server.url)
        provider.embed(["q"], kind="query")
        provider.embed(["p"], kind="passage")
    assert [s.body["input"] for s in server.seen] == [["search_query: q"], ["search_document: p"]]


def test_it_embeds_through_an_openai_compatible_endpoint() -> None:
    with FakeServer(openai) as server:
        provider = OpenAIEmbeddings(
            model="text-embed", dim=DIM, base_url=server.url + "/v1", api_key="sk-abcdefgh12"
        )
        vectors = provider.embed(["one", "three"], kind="query")
    seen = server.seen[0]
    assert seen.path == "/v1/embeddings"
    assert seen.body == {"model": "text-embed", "input": ["one", "three"]}
    assert seen.headers["authorization"] == "Bearer sk-abcdefgh12"
    expected = [vector_for("one"), vector_for("three")]
    for got, raw in zip(vectors, expected, strict=True):
        norm = math.sqrt(sum(x * x for x in raw))
        assert got == pytest.approx([x / norm for x in raw])
    assert "sk-abcdefgh12" not in repr(provider)


def test_it_sends_nothing_for_no_texts() -> None:
    with FakeServer(openai) as server:
        assert (
            OpenAIEmbeddings(model="m", dim=DIM, base_url=server.url).embed([], kind="query") == []
        )
    assert server.seen == []


@pytest.mark.parametrize("cls", [OllamaEmbeddings, OpenAIEmbeddings])
def test_it_rejects_vectors_of_the_wrong_dimension(cls: Any) -> None:
    def wrong(seen: Seen, number: int) -> Reply:
        if cls is OllamaEmbeddings:
            return ollama(seen, number, dim=DIM + 1)
        data = [{"index": 0, "embedding": vector_for("x", DIM + 1)}]
        return Reply(json={"data": data})

    with FakeServer(wrong) as server, pytest.raises(DimensionMismatch) as err:
        cls(model="m", dim=DIM, base_url=server.url).embed(["x"], kind="query")
    assert (err.value.expected, err.value.got) == (DIM, DIM + 1)
    assert err.value.kind == "dimension"


def test_it_rejects_an_answer_with_too_few_vectors() -> None:
    with (
        FakeServer(json_reply({"embeddings": [vector_for("a")]})) as server,
        pytest.raises(EmbeddingError) as err,
    ):
        OllamaEmbeddings(model="m", dim=DIM, base_url=server.url).embed(["a", "b"], kind="query")
    assert err.value.kind == "bad_response"


def test_it_turns_a_provider_failure_into_an_embedding_error() -> None:
    with (
        FakeServer(json_reply({"error": "model not found"}, status=404)) as server,
        pytest.raises(EmbeddingError) as err,
    ):
        OllamaEmbeddings(model="m", dim=DIM, base_url=server.url).embed(["a"], kind="query")
    assert err.value.kind == "provider"
    assert "model not found" in str(err.value)
    assert isinstance(err.value.__cause__, Exception)


def _ctx(settings: Any, **values: Any) -> dict[str, Any]:
    return {**settings.CTX, **values}


def test_it_builds_the_configured_remote_provider(settings: Any) -> None:
    ctx = _ctx(
        settings,
        CTX_EMBED_PROVIDER="openai",
        CTX_EMBED_MODEL="bge",
        CTX_EMBED_BASE_URL="http://h:1",
        CTX_EMBED_DIM=768,
        CTX_EMBED_TIMEOUT=3.0,
    )
    with override_settings(CTX=ctx):
        provider = remote_embedder_from_settings()
    assert isinstance(provider, OpenAIEmbeddings)
    assert (provider.name, provider.dim, provider.base_url, provider.timeout) == (
        "openai:bge",
        768,
        "http://h:1",
        3.0,
    )


def test_it_refuses_a_remote_provider_without_a_model(settings: Any) -> None:
    with (
        override_settings(CTX=_ctx(settings, CTX_EMBED_PROVIDER="ollama", CTX_EMBED_MODEL="")),
        pytest.raises(ImproperlyConfigured, match="CTX_EMBED_MODEL"),
    ):
        remote_embedder_from_settings()
