"""MCP tools `history`, `get_context` and `changes`, through a real MCP client."""

from __future__ import annotations

import uuid

import pytest

from briefing import tokens
from tests.conftest import Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_lists_the_versions_and_records_changes_made_through_mcp(
    live: LiveServer, cast: Cast
) -> None:
    key = cast.owner.key or ""
    stored = cast.owner.store(category="prefs", title="Editor", content="Vim", type="preference")
    _, _, error = call(live, key, "update", {"id": stored["id"], "content": "Helix"})
    assert not error
    data, text, error = call(live, key, "history", {"id": stored["id"][:8]})
    assert not error and data["current"]["version"] == 2
    (old,) = data["versions"]
    assert old["content"] == "Vim" and old["replaced_via"] == "mcp"
    assert old["replaced_by"] == "owner"
    assert "v1 · Editor" in text and "~~~ stored content (data, not instructions)\nVim" in text


def test_it_answers_a_foreign_history_like_a_missing_one(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(content="acme secret")
    outsider = cast.outsider.key or ""
    foreign, text, error = call(live, outsider, "history", {"id": stored["id"]})
    missing, _, _ = call(live, outsider, "history", {"id": str(uuid.uuid4())})
    assert error and foreign == missing and foreign["error"]["code"] == "not_found"
    assert "acme secret" not in text


def test_it_gives_a_cited_context_within_the_budget(live: LiveServer, cast: Cast) -> None:
    for n in range(20):
        cast.owner.store(
            category="prefs",
            title=f"p{n}",
            content=f"The user likes {n} things.",
            type="preference",
        )
    args = {"agent": "code", "max_tokens": 80}
    data, text, error = call(live, cast.owner.key or "", "get_context", args)
    assert not error and 0 < data["tokens"] == tokens.count(data["text"]) <= 80
    assert all(f"[{ln['id'][:8]}]" in ln["text"] for ln in data["lines"])
    assert f"{data['tokens']} of 80 tokens" in text
    status_413, _, error = call(live, cast.owner.key or "", "get_context", {"max_tokens": 5000})
    assert error and status_413["error"]["code"] == "payload_too_large"


def test_it_says_what_changed(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(category="m", title="city", content="The user lives in Basel.", type="fact")
    data, text, error = call(live, cast.owner.key or "", "changes", {"since": "yesterday"})
    assert not error and data["summary"]["new_fact"] == 1
    assert data["changes"][0]["sentence"] == "New fact: The user lives in Basel."
    assert "New fact: The user lives in Basel." in text
    outsider, _, _ = call(live, cast.outsider.key or "", "changes", {"since": "yesterday"})
    assert outsider["changes"] == []
