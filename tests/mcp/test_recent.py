"""MCP tool `recent`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_lists_the_latest_blocks_first(live: LiveServer, cast: Cast) -> None:
    ids = [cast.owner.store(title=f"note {i}", content=f"text {i}")["id"] for i in range(3)]
    data, text, error = call(live, cast.owner.key or "", "recent", {"limit": 2})
    assert not error and [r["id"] for r in data["results"]] == ids[::-1][:2]
    assert data["count"] == 2 and "note 2" in text


def test_it_filters_by_scope_and_skips_archived(live: LiveServer, cast: Cast) -> None:
    main = cast.owner.store(title="main", content="in main")
    team = cast.owner.store(title="team", content="in team", scope="acme:team")
    gone = cast.owner.store(title="gone", content="archived")
    cast.owner.post("/api/manage", {"action": "delete", "id": gone["id"]})
    data, _, _ = call(live, cast.owner.key or "", "recent", {})
    assert {r["id"] for r in data["results"]} == {main["id"], team["id"]}
    data, _, _ = call(live, cast.owner.key or "", "recent", {"scopes": ["acme:team"]})
    assert [r["id"] for r in data["results"]] == [team["id"]]


def test_it_never_shows_another_tenants_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(content="acme only")
    data, _, error = call(live, cast.outsider.key or "", "recent", {})
    assert not error and data["results"] == []
    assert_unreadable(live, cast.outsider.key or "", "recent", {})


def test_it_leaves_out_generated_digests(live: LiveServer, cast: Cast) -> None:
    note = cast.owner.store(title="note", content="a change someone made")
    cast.owner.store(title="topic map", content="generated summary", type="digest")
    data, _, _ = call(live, cast.owner.key or "", "recent", {})
    assert [r["id"] for r in data["results"]] == [note["id"]]
