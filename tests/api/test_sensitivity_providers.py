"""Provider trust through the HTTP API: content above a provider's trust is never sent to it.

The providers are local fakes over real HTTP (tests/fake_http.py, through the real
ctx.outbound): each records every request it receives, so a test can show that a secret never
reached it, not merely that ctx meant not to send it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from ctx.models import EMBED_DIM, Block
from retrieval import embeddings, indexing
from tests.conftest import Cast
from tests.fake_http import FakeServer, Reply, Seen

pytestmark = pytest.mark.django_db

AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
SECRET_NOTE = f"The staging deploy uses access key {AWS} until the rotation in May."
PUBLIC_NOTE = "Staging deploys run every Tuesday after the stand-up meeting."


def _vector(text: str) -> list[float]:
    """A deterministic unit vector per text (the fake embedder's answer)."""
    seed = hashlib.sha256(text.encode()).digest()
    raw = [seed[i % len(seed)] - 127.5 + i % 7 for i in range(EMBED_DIM)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


def _embedder(seen: Seen, number: int) -> Reply:
    texts = seen.body["input"]
    data = [{"index": i, "embedding": _vector(t)} for i, t in enumerate(texts)]
    return Reply(json={"data": data, "model": "m"})


def _sent(server: FakeServer) -> str:
    """Everything the fake received, as one string to search for secrets."""
    return "\n".join(json.dumps(s.body) for s in server.seen)


def _configure(settings: Any, **values: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_TRANSLATE_QUERIES": False, **values}
    embeddings.get_embedder.cache_clear()
    embeddings._LRU.clear()


@pytest.fixture
def remote_embedder(settings: Any) -> Iterator[FakeServer]:
    """An OpenAI-compatible /v1/embeddings endpoint; trust left at auto (= internal)."""
    with FakeServer(_embedder) as server:
        _configure(
            settings,
            CTX_EMBED_PROVIDER="openai",
            CTX_EMBED_MODEL="m",
            CTX_EMBED_BASE_URL=server.url,
        )
        yield server
    embeddings.get_embedder.cache_clear()
    embeddings._LRU.clear()


def _stats(cast: Cast) -> dict[str, Any]:
    status, body = cast.owner.post("/api/manage", {"action": "stats"})
    assert status == 200, body
    return body["stats"]


# --- embedding ---------------------------------------------------------------------------------


def test_it_never_sends_a_credentials_block_to_a_remote_embedder(
    cast: Cast, remote_embedder: FakeServer
) -> None:
    secret = cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    public = cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    assert secret["sensitivity"] == "credentials"
    assert secret["guard"]["checked"] is False  # the near-duplicate hint did not embed it
    indexing.embed_pending(limit=50)
    assert PUBLIC_NOTE in _sent(remote_embedder)  # the fake works: the public block went
    assert AWS not in _sent(remote_embedder) and "Deploy key" not in _sent(remote_embedder)
    assert Block.objects.get(pk=secret["id"]).embedding is None
    assert Block.objects.get(pk=public["id"]).embedding is not None
    stats = _stats(cast)
    assert (stats["awaiting_embedding"], stats["not_embedded_sensitivity"]) == (0, 1)


def test_it_does_not_retry_a_blocked_block_in_the_backfill(
    cast: Cast, remote_embedder: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    assert indexing.backfill(max_seconds=5) == 0
    assert indexing.embed_pending() == 0
    assert remote_embedder.seen == []


def test_it_keeps_a_blocked_block_findable_by_the_lexical_arms(
    cast: Cast, remote_embedder: FakeServer
) -> None:
    secret = cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    indexing.embed_pending(limit=50)
    status, body = cast.owner.post(
        "/api/query", {"query": "staging deploy access key rotation", "explain": True}
    )
    assert status == 200, body
    assert [s["id"] for s in body["sources"]] == [secret["id"]]
    assert body["explain"]["not_embedded_sensitivity"] == [secret["id"]]


def test_it_raises_and_skips_a_block_written_before_the_detector(
    cast: Cast, remote_embedder: FakeServer
) -> None:
    stored = cast.owner.store(category="infra", title="Old note", content="harmless")
    Block.objects.filter(pk=stored["id"]).update(content=SECRET_NOTE, sensitivity="internal")
    indexing.embed_pending(limit=50)
    assert AWS not in _sent(remote_embedder)
    assert Block.objects.get(pk=stored["id"]).sensitivity == "credentials"
    assert _stats(cast)["not_embedded_sensitivity"] == 1


def test_a_step_of_only_raised_blocks_does_not_end_the_embedding_of_the_rest(
    cast: Cast, remote_embedder: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One text per step: the first step takes only the raised block and embeds nothing; the
    # blocks after it are still embedded in the same call, not left for the periodic backfill.
    monkeypatch.setattr(indexing, "MAX_TEXTS", 1)
    old = cast.owner.store(category="infra", title="Old note", content="harmless")
    Block.objects.filter(pk=old["id"]).update(content=SECRET_NOTE, sensitivity="internal")
    plain = [cast.owner.store(title=f"Note {i}", content=f"plain note {i}")["id"] for i in range(2)]
    assert indexing.embed_pending(limit=50, ids=[old["id"], *plain]) == 2
    assert AWS not in _sent(remote_embedder)
    assert not Block.objects.filter(pk__in=plain, embedding__isnull=True).exists()
    assert Block.objects.get(pk=old["id"]).sensitivity == "credentials"


def test_it_sends_credentials_when_the_embedder_is_trusted_with_them(
    cast: Cast, remote_embedder: FakeServer, settings: Any
) -> None:
    _configure(settings, CTX_EMBED_TRUST="credentials")
    secret = cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    indexing.embed_pending(limit=50)
    assert AWS in _sent(remote_embedder)
    assert Block.objects.get(pk=secret["id"]).embedding is not None


def test_it_does_not_send_a_query_holding_a_secret_to_the_embedder(
    cast: Cast, remote_embedder: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    status, body = cast.owner.post(
        "/api/query", {"query": f"why is {GITHUB} refused on staging deploys?", "explain": True}
    )
    assert status == 200, body
    assert body["explain"]["embedding"]["status"] == "blocked"
    assert GITHUB not in _sent(remote_embedder)
    assert [s["title"] for s in body["sources"]] == ["Deploy day"]  # lexical arms answered


# --- LLM: synthesis and translation ----------------------------------------------------------


def _chat(answer: dict[str, Any]) -> Any:
    def behaviour(seen: Seen, number: int) -> Reply:
        content = json.dumps(answer)
        return Reply(
            json={
                "model": "fake",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 9},
            }
        )

    return behaviour


@pytest.fixture
def remote_llm(settings: Any) -> Iterator[FakeServer]:
    """An OpenAI-compatible chat endpoint; CTX_LLM_TRUST left at its default (internal)."""
    answer = {"known": True, "answer": "Staging deploys run on Tuesdays [1]."}
    with FakeServer(_chat(answer)) as server:
        _configure(
            settings, CTX_LLM_PROVIDER="openai", CTX_LLM_MODEL="fake", CTX_LLM_BASE_URL=server.url
        )
        yield server


def _synthesize(cast: Cast, query: str) -> tuple[int, dict[str, Any]]:
    return cast.owner.post("/api/query", {"query": query, "synthesize": True, "limit": 3})


def test_it_fails_closed_when_synthesis_would_send_a_credentials_source(
    cast: Cast, remote_llm: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, "which access key does the staging deploy use?")
    assert status == 422, body
    error = body["error"]
    assert error["code"] == "sensitivity_blocked"
    assert "CTX_LLM_TRUST" in error["message"] and "without synthesize" in error["message"]
    assert error["details"] == {"provider": "llm", "level": "credentials", "trust": "internal"}
    assert AWS not in json.dumps(body)
    assert remote_llm.seen == []  # nothing reached the LLM


def test_it_fails_closed_on_a_level_set_by_hand(cast: Cast, remote_llm: FakeServer) -> None:
    cast.owner.store(
        category="people", title="Anna", content="Anna prefers Tuesdays.", sensitivity="personal"
    )
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, "which day does Anna prefer?")
    assert status == 422 and body["error"]["details"]["level"] == "personal", body
    assert remote_llm.seen == []


def test_it_synthesizes_over_public_blocks(cast: Cast, remote_llm: FakeServer) -> None:
    cast.owner.store(
        category="infra", title="Deploy day", content=PUBLIC_NOTE, sensitivity="public"
    )
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, "when do staging deploys run?")
    assert status == 200, body
    assert body["mode"] == "synthesis" and body["answer"].startswith("Staging deploys run")
    assert PUBLIC_NOTE in _sent(remote_llm)


def test_it_synthesizes_over_credentials_when_the_llm_is_trusted(
    cast: Cast, remote_llm: FakeServer, settings: Any
) -> None:
    _configure(settings, CTX_LLM_TRUST="credentials")
    cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, "which access key does the staging deploy use?")
    assert status == 200 and body["mode"] == "synthesis", body


def test_it_hands_the_llm_only_the_redaction_marker_of_a_block_the_key_reads_masked(
    cast: Cast, remote_llm: FakeServer, settings: Any
) -> None:
    """A trusted LLM still must not write the secret into the answer of a key that reads the
    block masked (ceiling personal): it sees what the key would see."""
    _configure(settings, CTX_LLM_TRUST="credentials")
    cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, "which access key does the staging deploy use?")
    assert status == 200 and body["mode"] == "synthesis", body
    assert AWS not in _sent(remote_llm) and "[redacted:credentials]" in _sent(remote_llm)


def test_it_does_not_send_a_query_holding_a_secret_for_synthesis(
    cast: Cast, remote_llm: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    indexing.embed_pending(limit=50)
    status, body = _synthesize(cast, f"staging deploys fail with token {GITHUB}, why?")
    assert status == 422 and body["error"]["code"] == "sensitivity_blocked", body
    assert remote_llm.seen == []


def test_it_does_not_translate_a_query_holding_a_secret(
    cast: Cast, remote_llm: FakeServer, settings: Any
) -> None:
    _configure(settings, CTX_TRANSLATE_QUERIES=True)
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    status, body = cast.owner.post(
        "/api/query", {"query": f"staging deploys fail with token {GITHUB}", "explain": True}
    )
    assert status == 200, body
    assert body["explain"]["language"]["translations"] == {}
    assert GITHUB not in _sent(remote_llm)


def test_it_does_not_send_a_query_holding_a_secret_to_the_temporal_fallback(
    cast: Cast, remote_llm: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    query = f"staging deploys failed ever since token {GITHUB} was rotated"
    status, body = cast.owner.post("/api/query", {"query": query})
    assert status == 200, body
    assert remote_llm.seen == []


# --- rerank ------------------------------------------------------------------------------------


def _rerank(seen: Seen, number: int) -> Reply:
    docs = seen.body["documents"]
    results = [{"index": i, "relevance_score": 1.0 / (i + 1)} for i in range(len(docs))]
    return Reply(json={"results": results})


@pytest.fixture
def remote_reranker(settings: Any) -> Iterator[FakeServer]:
    """A /v1/rerank sidecar; CTX_RERANK_TRUST left at auto (= internal for http)."""
    with FakeServer(_rerank) as server:
        _configure(
            settings,
            CTX_RERANK_BACKEND="http",
            CTX_RERANK_URL=f"{server.url}/v1/rerank",
            CTX_RERANK_MODEL="m",
        )
        yield server


def _reranked(cast: Cast) -> dict[str, Any]:
    status, body = cast.owner.post(
        "/api/query",
        {"query": "staging deploy schedule and access", "explain": True, "stages": ["rerank"]},
    )
    assert status == 200, body
    return body


def test_it_does_not_send_a_credentials_block_to_a_remote_reranker(
    cast: Cast, remote_reranker: FakeServer
) -> None:
    cast.owner.store(category="infra", title="Deploy key", content=SECRET_NOTE)
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    indexing.embed_pending(limit=50)
    body = _reranked(cast)
    assert len(body["sources"]) == 2
    rerank = body["explain"]["rerank"]
    assert (rerank["status"], rerank["level"], rerank["trust"]) == (
        "blocked",
        "credentials",
        "internal",
    )
    assert remote_reranker.seen == []


def test_it_reranks_blocks_within_the_trust(cast: Cast, remote_reranker: FakeServer) -> None:
    cast.owner.store(category="infra", title="Deploy day", content=PUBLIC_NOTE)
    cast.owner.store(category="infra", title="Deploy access", content="Ask ops for staging access.")
    indexing.embed_pending(limit=50)
    body = _reranked(cast)
    assert body["explain"]["rerank"]["status"] == "ok"
    assert len(remote_reranker.seen) == 1
