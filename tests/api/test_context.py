"""GET /api/context: a compact, cited block for a system prompt, never over its token budget."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from briefing import tokens
from ctx.models import Block
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db


def _context(api: Api, **params: Any) -> dict[str, Any]:
    status, body = api.get("/api/context", **params)
    assert status == 200, body
    return body


def _fact(api: Api, title: str, content: str, type_: str = "fact", **more: Any) -> str:
    return str(api.store(category="memory", title=title, content=content, type=type_, **more)["id"])


def _age(block_id: str, days: float) -> None:
    Block.objects.filter(pk=block_id).update(updated_at=timezone.now() - timedelta(days=days))


def _seed(api: Api) -> dict[str, str]:
    ids = {
        "editor": _fact(api, "editor", "The user prefers Vim over VS Code.", "preference"),
        "tabs": _fact(api, "tabs", "The user indents with tabs.", "preference"),
        "city": _fact(api, "city", "The user lives in Basel.", metadata={"subject": "user"}),
        "atlas": _fact(
            api,
            "Atlas",
            "Rewrite of the billing service.",
            "entity",
            metadata={"entity_type": "project", "status": "active"},
        ),
        "db": _fact(api, "db", "Atlas uses Postgres 16.", "decision", tags=["project:atlas"]),
        "queue": _fact(api, "queue", "Shop moves to Kafka.", "decision"),
        "task": _fact(api, "ci", "Fix the flaky CI job in Atlas.", "task"),
        "done": _fact(api, "old", "Write the README.", "task", metadata={"status": "done"}),
        "bob": _fact(
            api, "Bob", "Reviews Atlas pull requests.", "entity", metadata={"entity_type": "person"}
        ),
    }
    for _ in range(30):  # transcripts and notes are never context lines
        api.store(category="chat", title=f"window {_}", content="just talk", type="transcript")
    return ids


def test_it_cites_a_source_id_on_every_line(cast: Cast) -> None:
    ids = _seed(cast.owner)
    body = _context(cast.owner, agent="code", project="atlas")
    lines = [ln for ln in body["text"].splitlines() if ln.startswith("- ")]
    assert lines and all(re.search(r"\[[0-9a-f]{8}\]$", ln) for ln in lines)
    cited = {ln["id"] for ln in body["lines"]}
    assert {ids["editor"], ids["atlas"], ids["db"], ids["task"], ids["bob"]} <= cited
    assert ids["done"] not in cited  # a closed task is not open work
    for line in body["lines"]:
        assert f"[{line['id'][:8]}]" in line["text"] and line["text"] in body["text"]
    assert "Active" not in body["text"] and "Atlas (active)" in body["text"]
    assert body["text"].index("## Profile") < body["text"].index("## Recent decisions")


def test_it_never_exceeds_the_budget_counted_by_the_same_tokenizer(cast: Cast) -> None:
    _seed(cast.owner)  # one seed for every budget: each store is a real request
    for n in range(25):
        text = f"The user likes thing number {n} quite a lot. " * 3
        _fact(cast.owner, f"pref {n}", text, "preference")
    for budget in (30, 60, 120, 500):
        body = _context(cast.owner, max_tokens=budget)
        assert body["tokens"] == tokens.count(body["text"]) <= budget
        assert body["max_tokens"] == budget
        assert body["lines"] or budget < 40  # a heading and one cited line need about 35 tokens
        if budget == 500:
            assert body["tokens"] > 400  # the budget is used, not left empty


def test_it_counts_real_tokens_not_words(cast: Cast) -> None:
    _fact(cast.owner, "id", "The user's API host is api-eu-3.internal.example.com:8443.")
    body = _context(cast.owner)
    (line,) = body["lines"]
    assert line["tokens"] == tokens.count(line["text"]) > len(line["text"].split()) * 1.3


def test_it_always_includes_corrections_of_the_last_week_first(cast: Cast) -> None:
    for n in range(40):
        _fact(cast.owner, f"pref {n}", f"The user likes thing number {n}.", "preference")
    fixed = _fact(
        cast.owner,
        "deploy",
        "The team deploys on Thursdays.",
        metadata={"corrects": True, "confidence": 0.2},
    )
    stale = _fact(cast.owner, "old fix", "The office is in Bern.", metadata={"corrects": True})
    _age(stale, 10)
    body = _context(cast.owner, max_tokens=60)
    assert body["lines"][0]["id"] == fixed and body["lines"][0]["section"] == "corrections"
    assert "## Corrections (last 7 days)" in body["text"]
    assert all(ln["id"] != stale or ln["section"] != "corrections" for ln in body["lines"])


def test_it_ranks_by_recency_confidence_and_the_project(cast: Cast) -> None:
    fresh = _fact(cast.owner, "fresh", "Shop uses Redis.", "decision", metadata={"confidence": 0.9})
    old = _fact(cast.owner, "old", "Shop uses Memcached.", "decision", metadata={"confidence": 0.9})
    _age(old, 60)
    unsure = _fact(
        cast.owner, "unsure", "Shop may use NATS.", "decision", metadata={"confidence": 0.2}
    )
    atlas = _fact(
        cast.owner,
        "atlas",
        "Atlas uses gRPC.",
        "decision",
        metadata={"confidence": 0.9, "project": "atlas"},
    )
    _age(atlas, 20)
    order = [ln["id"] for ln in _context(cast.owner)["lines"]]
    assert order.index(fresh) < order.index(unsure) and order.index(fresh) < order.index(old)
    with_project = [ln["id"] for ln in _context(cast.owner, project="atlas")["lines"]]
    assert with_project[0] == atlas


def test_it_shapes_the_context_for_the_agent(cast: Cast) -> None:
    _seed(cast.owner)
    meeting = _context(cast.owner, agent="meeting", project="atlas")["lines"]
    code = _context(cast.owner, agent="code", project="atlas")["lines"]

    def rank_of(lines: list[dict[str, Any]], section: str) -> int:
        return next(i for i, ln in enumerate(lines) if ln["section"] == section)

    assert rank_of(meeting, "people") < rank_of(code, "people")


def test_it_leaves_out_credentials_superseded_and_expired_blocks(cast: Cast) -> None:
    key = _fact(cast.owner, "key", "The user's token is abc.", sensitivity="credentials")
    old = _fact(cast.owner, "day", "We deploy on Tuesdays.")
    new = _fact(cast.owner, "day2", "We deploy on Thursdays.")
    Block.objects.filter(pk=old).update(superseded_by_id=new)
    ended = _fact(cast.owner, "job", "The user works at Initech.", valid_to="2020-01-01")
    cited = {ln["id"] for ln in _context(cast.owner)["lines"]}
    assert new in cited and not cited & {key, old, ended}


def test_it_shows_only_the_callers_scopes(cast: Cast) -> None:
    _seed(cast.owner)
    body = _context(cast.outsider, project="atlas")
    assert body["lines"] == [] and "Vim" not in body["text"]


def test_it_answers_text_for_a_system_prompt(cast: Cast) -> None:
    _seed(cast.owner)
    resp = cast.owner.client.get(
        "/api/context",
        {"agent": "code"},
        headers={"X-Context-Key": str(cast.owner.key), "Accept": "text/plain"},
    )
    assert resp.status_code == 200 and resp["Content-Type"].startswith("text/plain")
    assert resp.content.decode().startswith("# ctx context · agent code")


def test_it_refuses_a_budget_over_the_bound_as_too_large(cast: Cast) -> None:
    status, body = cast.owner.get("/api/context", max_tokens=4001)
    assert status == 413 and body["error"]["message"] == "'max_tokens' is more than 4000."
    assert cast.owner.get("/api/context", max_tokens=4000)[0] == 200
    status, body = cast.owner.get("/api/context", max_tokens=10)
    assert status == 400 and body["error"]["message"] == "'max_tokens' must be at least 30."
    status, body = cast.owner.get("/api/context", agent="pirate")
    assert status == 400 and "'agent' must be one of" in body["error"]["message"]
