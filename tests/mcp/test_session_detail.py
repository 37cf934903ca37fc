"""MCP tool `session_detail`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.mcp.sessions_support import conversation, put

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_reads_where_a_session_stopped(live: LiveServer, cast: Cast) -> None:
    texts = [f"step {i}" for i in range(10)]
    ids = put(cast.owner, conversation("cc-1", texts, "2026-03-01"))
    args = {"id": ids["cc-1"], "latest": True, "limit": 3}
    data, text, error = call(live, cast.owner.key or "", "session_detail", args)
    assert not error and [m["text"] for m in data["messages"]] == ["step 7", "step 8", "step 9"]
    assert "messages 8-10 of 10" in text and "#9 assistant: step 9" in text


def test_it_answers_another_tenants_session_like_a_missing_one(
    live: LiveServer, cast: Cast
) -> None:
    ids = put(cast.owner, conversation("cc-1", ["acme only"], "2026-03-01"))
    foreign, text, error = call(
        live, cast.outsider.key or "", "session_detail", {"id": ids["cc-1"]}
    )
    missing, _, _ = call(live, cast.outsider.key or "", "session_detail", {"id": 999_999})
    assert error and foreign == missing
    assert foreign["error"] == {"code": "not_found", "message": "Session not found."}
    assert "acme only" not in text


def test_it_needs_an_id(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(live, cast.owner.key or "", "session_detail", {})
    assert error and data["error"]["code"] == "validation_error"
