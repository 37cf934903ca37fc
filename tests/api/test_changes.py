"""GET /api/changes?since=…: what changed, one template sentence per change, a page at a time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from ctx.models import Block, BlockVersion, Scope
from ingest.models import Session
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db


def _changes(api: Api, **params: Any) -> dict[str, Any]:
    status, body = api.get("/api/changes", **params)
    assert status == 200, body
    return body


def _store(api: Api, title: str, content: str, type_: str = "fact", **more: Any) -> str:
    return str(api.store(category="memory", title=title, content=content, type=type_, **more)["id"])


def _backdate(block_id: str, days: float) -> None:
    when = timezone.now() - timedelta(days=days)
    Block.objects.filter(pk=block_id).update(created_at=when, updated_at=when)


def _session(scope: str, tool: str, n: int) -> None:
    Session.objects.create(
        scope=Scope.objects.get(name=scope), tool=tool, external_id=f"{tool}-{n}"
    )


def test_it_lists_new_memories_with_one_sentence_each(cast: Cast) -> None:
    fact = _store(cast.owner, "city", "The user lives in Basel.")
    decision = _store(cast.owner, "db", "We use Postgres.", "decision")
    bob = _store(cast.owner, "Bob", "A reviewer.", "entity", metadata={"entity_type": "person"})
    note = _store(cast.owner, "Deploys", "We deploy on Thursdays.", "knowledge")  # ctx save
    _store(cast.owner, "talk", "chit chat", "transcript")  # counted as sessions, not here
    old = _store(cast.owner, "old", "Long ago.")
    _backdate(old, 3)
    body = _changes(cast.owner, since="yesterday")
    by_id = {c["id"]: c for c in body["changes"] if "id" in c}
    assert set(by_id) == {fact, decision, bob, note}
    assert by_id[fact]["sentence"] == "New fact: The user lives in Basel."
    assert by_id[decision]["sentence"] == "Decided: We use Postgres."
    assert by_id[bob]["sentence"] == "New person: Bob."
    assert by_id[note]["sentence"] == 'New note "Deploys": We deploy on Thursdays.'
    assert body["summary"] == {
        "new_fact": 1,
        "new_decision": 1,
        "new_entity": 1,
        "new_knowledge": 1,
        "updated": 0,
    }
    ats = [c["at"] for c in body["changes"]]
    assert ats == sorted(ats, reverse=True)


def test_it_shows_a_superseded_fact_before_and_after(cast: Cast) -> None:
    old = _store(cast.owner, "deploy day", "The team deploys on Tuesdays.")
    _backdate(old, 5)
    new = _store(cast.owner, "deploy day 2", "The team deploys on Thursdays.")
    Block.objects.filter(pk=old).update(superseded_by_id=new)
    (change,) = _changes(cast.owner, since="yesterday")["changes"]
    assert change["kind"] == "superseded" and change["id"] == new
    assert change["before"] == {"id": old, "content": "The team deploys on Tuesdays."}
    assert change["after"]["content"] == "The team deploys on Thursdays."
    assert change["sentence"] == (
        'deploy day 2: "The team deploys on Tuesdays." is now "The team deploys on Thursdays.".'
    )


def test_a_fact_titled_by_its_sentence_is_not_said_twice(cast: Cast) -> None:
    old = _store(cast.owner, "The user's editor is Neovim.", "The user's editor is Neovim.")
    _backdate(old, 5)
    for title in ("The user's editor is Helix.", "The user's editor is Helix. (2)"):
        new = _store(cast.owner, title, "The user's editor is Helix.")
        Block.objects.filter(pk=old).update(superseded_by_id=new)
        (change,) = _changes(cast.owner, since="yesterday")["changes"]
        assert change["sentence"] == (
            'Changed: "The user\'s editor is Neovim." is now "The user\'s editor is Helix.".'
        ), title
        Block.objects.filter(pk=new).update(archived=True)


def test_it_shows_an_updated_block_from_its_history(cast: Cast) -> None:
    block = _store(cast.owner, "editor", "The user prefers Vim.", "preference")
    _backdate(block, 5)
    status, _ = cast.owner.post(
        "/api/manage",
        {"action": "update", "id": block, "fields": {"content": "The user prefers Helix."}},
    )
    assert status == 200
    (change,) = _changes(cast.owner, since="yesterday")["changes"]
    assert change["kind"] == "updated" and change["id"] == block and change["version"] == 1
    assert change["before"]["content"] == "The user prefers Vim."
    assert change["after"]["content"] == "The user prefers Helix."
    assert change["sentence"] == (
        'editor was changed by owner (http): "The user prefers Vim." → "The user prefers Helix.".'
    )


def test_it_counts_new_sessions_per_tool(cast: Cast) -> None:
    for n in range(3):
        _session("acme:main", "claude-code", n)
    _session("acme:main", "codex", 0)
    _session("globex:main", "codex", 1)  # another tenant's
    body = _changes(cast.owner, since=timezone.now().date().isoformat())
    sessions = {c["tool"]: c for c in body["changes"] if c["kind"] == "new_sessions"}
    assert sessions["claude-code"]["sentence"] == "3 new claude-code sessions."
    assert (
        sessions["codex"]["count"] == 1 and sessions["codex"]["sentence"] == "1 new codex session."
    )


def test_it_pages_with_a_cursor_across_sources(cast: Cast) -> None:
    ids = [_store(cast.owner, f"f{n}", f"fact {n}") for n in range(5)]
    status, _ = cast.owner.post(
        "/api/manage", {"action": "update", "id": ids[0], "fields": {"content": "fact 0 again"}}
    )
    assert status == 200
    _session("acme:main", "codex", 0)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        body = _changes(
            cast.owner, since="yesterday", limit=2, **({"cursor": cursor} if cursor else {})
        )
        seen += [f"{c['kind']}:{c.get('id', c.get('tool'))}" for c in body["changes"]]
        assert (body["summary"] is None) == (cursor is not None)
        cursor, pages = body["next_cursor"], pages + 1
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 7 and pages == 4


def test_it_shows_only_the_callers_scopes(cast: Cast) -> None:
    _store(cast.owner, "city", "The user lives in Basel.")
    _session("acme:main", "codex", 0)
    body = _changes(cast.outsider, since="yesterday")
    assert body["changes"] == [] and body["summary"] == {"updated": 0}


def test_it_reads_iso_times_and_refuses_what_it_cannot_read(cast: Cast) -> None:
    block = _store(cast.owner, "city", "The user lives in Basel.")
    future = (timezone.now() + timedelta(hours=1)).isoformat()
    assert _changes(cast.owner, since=future)["changes"] == []
    assert _changes(cast.owner, since="2020-01-01")["changes"][0]["id"] == block
    status, body = cast.owner.get("/api/changes", since="whenever you like")
    assert status == 400 and body["error"]["details"] == {"field": "since"}
    assert cast.owner.get("/api/changes")[0] == 400  # since is required
    status, body = cast.owner.get("/api/changes", since="yesterday", cursor="nonsense")
    assert status == 400 and body["error"]["details"] == {"field": "cursor"}


def test_it_reads_a_clock_time_back_not_just_days(cast: Cast) -> None:
    recent = _store(cast.owner, "city", "The user lives in Basel.")
    earlier = _store(cast.owner, "db", "We use Postgres.", "decision")
    _backdate(recent, 0.5 / 24)
    _backdate(earlier, 3 / 24)
    for since in ("2 hours ago", "2h", "120 minutes ago", "vor 2 Stunden"):
        assert [c["id"] for c in _changes(cast.owner, since=since)["changes"]] == [recent], since
    assert _changes(cast.owner, since="10 min ago")["changes"] == []
    assert {c["id"] for c in _changes(cast.owner, since="4 hours ago")["changes"]} == {
        recent,
        earlier,
    }


def test_it_bounds_a_page_as_too_large(cast: Cast) -> None:
    status, body = cast.owner.get("/api/changes", since="yesterday", limit=201)
    assert status == 413 and body["error"]["message"] == "'limit' is more than 200."
    assert cast.owner.get("/api/changes", since="yesterday", limit=200)[0] == 200


def test_it_answers_text(cast: Cast) -> None:
    _store(cast.owner, "city", "The user lives in Basel.")
    resp = cast.owner.client.get(
        "/api/changes",
        {"since": "yesterday", "format": "text"},
        headers={"X-Context-Key": str(cast.owner.key)},
    )
    assert resp.status_code == 200 and "New fact: The user lives in Basel." in resp.content.decode()
    assert BlockVersion.objects.count() == 0
