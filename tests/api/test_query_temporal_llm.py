"""The LLM fallback of the temporal parser through /api/query: dates only, weights from code.

The LLM is a local OpenAI-compatible fake over real HTTP (the outbound module is real); it
answers what a test tells it, so the tests can show what ctx does with a good answer, a bad
one, and no answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from retrieval import indexing, temporal_llm
from tests.conftest import Cast
from tests.fake_http import FakeServer, Reply, Seen

pytestmark = pytest.mark.django_db

NOW = "2025-03-12T14:00:00+01:00"
QUERY = "What did we plan for the summer 2024 offsite?"


def _llm_answer(ranges: Any) -> Reply:
    content = json.dumps({"ranges": ranges})
    return Reply(
        json={
            "model": "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 12},
        }
    )


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    temporal_llm._ask.cache_clear()  # answers are cached per (query, day, endpoint)


def _configure(settings: Any, url: str) -> None:
    settings.CTX = {
        **settings.CTX,
        "CTX_LLM_PROVIDER": "openai",
        "CTX_LLM_BASE_URL": url,
        "CTX_LLM_MODEL": "fake",
        "CTX_TRANSLATE_QUERIES": False,
    }


def _corpus(cast: Cast) -> None:
    # Equally relevant wording (not identical: the guard would archive near-copies).
    for title, text, when in (
        (
            "Offsite 2023",
            "Offsite planning: agenda, hotel and a boat trip.",
            "2023-07-10T10:00:00Z",
        ),
        (
            "Offsite 2024",
            "Offsite planning: agenda, hotel and a hiking day.",
            "2024-07-08T10:00:00Z",
        ),
        (
            "Offsite 2025",
            "Offsite planning: agenda, hotel and a city tour.",
            "2025-03-01T10:00:00Z",
        ),
    ):
        cast.owner.store(category="plans", title=title, content=text, source_time=when)
    indexing.embed_pending(limit=50)


def _ask(cast: Cast) -> dict[str, Any]:
    status, body = cast.owner.post(
        "/api/query", {"query": QUERY, "now": NOW, "explain": True, "limit": 3}
    )
    assert status == 200, body
    return body


def test_it_lets_the_llm_resolve_dates_the_rules_left_open(settings: Any, cast: Cast) -> None:
    _corpus(cast)
    seen: list[Seen] = []

    def answer(req: Seen, n: int) -> Reply:
        seen.append(req)
        return _llm_answer([{"start": "2024-06-01", "end": "2024-08-31"}])

    with FakeServer(answer) as llm:
        _configure(settings, llm.url)
        body = _ask(cast)
    temporal = body["explain"]["temporal"]
    assert temporal["matchers"] == ["llm"] and temporal["ranges"] == [["2024-06-01", "2024-08-31"]]
    assert temporal["weights"] == {"linear": pytest.approx(0.4)}  # from the rules' table
    assert temporal["explicit"] is False  # a guess is a prior, never a filter
    assert body["sources"][0]["title"] == "Offsite 2024"
    assert len(seen) == 1 and "2025-03-12" in json.dumps(seen[0].body)


def test_it_keeps_the_rules_when_the_llm_answers_nonsense(settings: Any, cast: Cast) -> None:
    _corpus(cast)
    bad = [
        {"start": "2024-13-40", "end": "2024-08-31"},
        {"start": "1200-01-01", "end": "1200-01-02"},
    ]
    with FakeServer(lambda req, n: _llm_answer(bad)) as llm:
        _configure(settings, llm.url)
        body = _ask(cast)
    assert body["explain"]["temporal"]["matchers"] == []
    assert len(body["sources"]) == 3  # the query still answers


def test_it_answers_without_the_llm_when_it_is_down(settings: Any, cast: Cast) -> None:
    _corpus(cast)
    with FakeServer(lambda req, n: Reply(status=503, json={"error": "down"})) as llm:
        _configure(settings, llm.url)
        body = _ask(cast)
    assert body["explain"]["temporal"]["matchers"] == [] and len(body["sources"]) == 3


def test_it_does_not_ask_the_llm_when_a_rule_resolved_the_query(settings: Any, cast: Cast) -> None:
    _corpus(cast)
    seen: list[Seen] = []

    def answer(req: Seen, n: int) -> Reply:
        seen.append(req)
        return _llm_answer([])

    with FakeServer(answer) as llm:
        _configure(settings, llm.url)
        status, body = cast.owner.post(
            "/api/query", {"query": "offsite planning last week", "now": NOW, "explain": True}
        )
    assert status == 200 and body["explain"]["temporal"]["matchers"] != ["llm"]
    assert not [s for s in seen if "Today is" in json.dumps(s.body)]


def test_it_checks_ranges_it_gets() -> None:
    from datetime import date

    today = date(2025, 3, 12)
    raw = [
        {"start": "2024-06-01", "end": "2024-08-31"},
        {"start": "2024-09-01", "end": "2024-08-01"},  # ends before it starts
        {"start": "tomorrow", "end": "2024-08-01"},
    ]
    assert [(r.start.isoformat(), r.end.isoformat()) for r in temporal_llm.checked(raw, today)] == [
        ("2024-06-01", "2024-08-31")
    ]
    assert temporal_llm.checked({"ranges": 1}, today) == ()
    assert temporal_llm.checked([{"start": "1901-01-01", "end": "1901-01-02"}], today) == ()
