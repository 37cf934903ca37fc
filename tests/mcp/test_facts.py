"""MCP tool `facts`: the same operation and JSON as GET /api/facts."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call
from tests.mcp.sessions_support import conversation, put

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learned(cast: Cast) -> Cast:
    talk = ["I prefer Vim over VS Code.", "Noted.", "We deploy on Tuesdays.", "OK."]
    put(cast.owner, conversation("cc-1", talk, "2026-03-01"))
    return cast


def test_it_lists_facts_with_evidence_and_sources(live: LiveServer, learned: Cast) -> None:
    key = learned.owner.key or ""
    data, text, error = call(live, key, "facts", {"kind": "preference"})
    assert not error, text
    (fact,) = data["facts"]
    assert (fact["value"], fact["evidence"]) == ("Vim", "I prefer Vim over VS Code")
    assert fact["sources"][0]["message_index"] == 0
    assert "The user prefers Vim over VS Code." in text and "message 0" in text
    assert data == learned.owner.get("/api/facts", kind="preference")[1]


def test_it_never_shows_another_tenants_facts(live: LiveServer, learned: Cast) -> None:
    data, _, error = call(live, learned.outsider.key or "", "facts", {})
    assert not error and data["facts"] == [] and data["total"] == 0
    assert_unreadable(live, learned.outsider.key or "", "facts", {})


def test_it_refuses_an_oversized_filter(live: LiveServer, learned: Cast) -> None:
    _, text, error = call(live, learned.owner.key or "", "facts", {"subject": "x" * 201})
    assert error and "longer than 200" in text
