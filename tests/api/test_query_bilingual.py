"""German questions find English notes and the other way round."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

from retrieval import embeddings, indexing
from tests.conftest import Cast
from tests.fake_http import FakeServer, Reply, Seen

pytestmark = pytest.mark.django_db

NOTES = {
    "Passport": "My passport expires in May 2027; renew it at the town hall.",
    "Heating": "The boiler needs a yearly service before winter.",
    "Reisepass": "Mein Reisepass läuft im Mai 2027 ab; verlängern im Bürgeramt.",
    "Heizung": "Die Heizung braucht jedes Jahr vor dem Winter eine Wartung.",
}


@pytest.fixture
def e5(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Switch to the multilingual e5 embedder for one test (the provider is cached)."""
    monkeypatch.setitem(settings.CTX, "CTX_EMBED_PROVIDER", "e5")
    embeddings.get_embedder.cache_clear()
    embeddings._LRU.clear()
    yield
    embeddings.get_embedder.cache_clear()
    embeddings._LRU.clear()


def _seed(cast: Cast, titles: list[str]) -> None:
    for title in titles:
        cast.owner.store(category="notes", title=title, content=NOTES[title])
    indexing.embed_pending(limit=50)


def _top(cast: Cast, query: str) -> tuple[str, dict[str, Any]]:
    status, body = cast.owner.post("/api/query", {"query": query, "explain": True})
    assert status == 200, body
    return body["sources"][0]["title"], body


def test_it_answers_a_german_question_from_english_notes(cast: Cast, e5: None) -> None:
    _seed(cast, ["Passport", "Heating"])
    title, body = _top(cast, "Wann läuft mein Reisepass ab?")
    assert title == "Passport"
    assert body["explain"]["language"]["detected"] == "de"
    assert "semantic" in body["explain"]["hits"][body["sources"][0]["id"]]["arms"]


def test_it_answers_an_english_question_from_german_notes(cast: Cast, e5: None) -> None:
    _seed(cast, ["Reisepass", "Heizung"])
    title, _ = _top(cast, "When does the heating need maintenance?")
    assert title == "Heizung"


def _translator(text: str) -> Any:
    """An OpenAI-compatible chat endpoint that answers every request with one translation."""

    def behaviour(seen: Seen, number: int) -> Reply:
        content = json.dumps({"translation": text})
        return Reply(
            json={
                "model": "fake",
                "choices": [{"message": {"content": content}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 5},
            }
        )

    return behaviour


def test_it_searches_each_full_text_arm_with_a_translation(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(cast, ["Passport", "Heating"])
    with FakeServer(_translator("When does my passport expire?")) as llm:
        for name, value in {
            "CTX_LLM_PROVIDER": "openai",
            "CTX_LLM_BASE_URL": llm.url,
            "CTX_LLM_MODEL": "fake",
        }.items():
            monkeypatch.setitem(settings.CTX, name, value)
        _, body = _top(cast, "Wann läuft mein Reisepass ab?")
    hit = body["explain"]["hits"][body["sources"][0]["id"]]
    assert body["sources"][0]["title"] == "Passport" and "fts_en" in hit["arms"]
    assert body["explain"]["language"]["translations"] == {"en": "When does my passport expire?"}


def test_it_drops_an_invalid_translation(cast: Cast, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(cast, ["Passport"])
    with FakeServer(_translator("<script>alert(1)</script>")) as llm:
        for name, value in {
            "CTX_LLM_PROVIDER": "openai",
            "CTX_LLM_BASE_URL": llm.url,
            "CTX_LLM_MODEL": "fake",
        }.items():
            monkeypatch.setitem(settings.CTX, name, value)
        _, body = _top(cast, "Wann läuft mein Reisepass ab?")
    assert body["explain"]["language"]["translations"] == {}


def test_the_full_text_weight_follows_the_questions_language(cast: Cast) -> None:
    # untranslated, the other language's arm would read the question with the wrong stemmer
    _seed(cast, ["Passport", "Reisepass"])
    weights = {}
    for query in ("When does my passport expire?", "Wann läuft mein Reisepass ab?", "Reisepass"):
        _, body = _top(cast, query)
        weights[query] = body["explain"]["weights"]
    assert weights["When does my passport expire?"]["fts_en"] == pytest.approx(0.40)
    assert weights["When does my passport expire?"]["fts_de"] == 0.0
    assert weights["Wann läuft mein Reisepass ab?"]["fts_de"] == pytest.approx(0.40)
    assert weights["Wann läuft mein Reisepass ab?"]["fts_en"] == 0.0
    # no function words, no language: both arms keep their configured share
    assert (weights["Reisepass"]["fts_en"], weights["Reisepass"]["fts_de"]) == (0.25, 0.15)
