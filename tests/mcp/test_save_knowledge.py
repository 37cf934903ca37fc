"""MCP tools `save_decision`, `save_error_solution`, `save_insight`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.mcp.sessions_support import conversation, put

pytestmark = pytest.mark.django_db(transaction=True)

DECISION = {
    "title": "Use PostgreSQL for the session store",
    "rationale": "we already run it and pgvector covers the vectors.",
    "alternatives": ["Redis"],
}


def test_it_saves_a_decision_then_refuses_the_same_again(live: LiveServer, cast: Cast) -> None:
    ids = put(cast.owner, conversation("cc-1", ["which store?", "PostgreSQL"], "2026-03-01"))
    key = cast.owner.key or ""
    data, text, error = call(live, key, "save_decision", {**DECISION, "session": ids["cc-1"]})
    assert not error and data["action"] == "created" and data["source_session"]["id"] == ids["cc-1"]
    assert text.startswith("Saved decision ")
    again, text, error = call(live, key, "save_decision", DECISION)
    assert not error and again["action"] == "rejected" and again["id"] == data["id"]
    assert "already says this" in text


def test_it_supersedes_a_close_decision(live: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    first, _, _ = call(live, key, "save_decision", DECISION)
    reworded = {
        **DECISION,
        "rationale": "we already operate it, and pgvector handles the embeddings.",
    }
    data, text, error = call(live, key, "save_decision", reworded)
    assert not error and data["action"] == "superseded" and data["supersedes"] == first["id"]
    assert "which is kept" in text


def test_it_saves_an_error_solution_and_an_insight(live: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    args = {"error": "EADDRINUSE on port 5173", "solution": "stop the old vite dev server"}
    data, _, error = call(live, key, "save_error_solution", args)
    assert not error and data["action"] == "created" and data["tools"] == ["vite"]
    data, _, error = call(live, key, "save_insight", {"insight": "Run ruff before mypy."})
    assert not error and data["action"] == "created" and data["kind"] == "insight"


def test_it_refuses_another_tenants_session_and_a_reader(live: LiveServer, cast: Cast) -> None:
    ids = put(cast.owner, conversation("cc-1", ["acme"], "2026-03-01"))
    data, _, error = call(
        live, cast.outsider.key or "", "save_insight", {"insight": "x", "session": ids["cc-1"]}
    )
    assert error and data["error"] == {"code": "not_found", "message": "Session not found."}
    data, _, error = call(live, cast.reader.key or "", "save_decision", DECISION)
    assert error and data["error"]["code"] == "forbidden"
