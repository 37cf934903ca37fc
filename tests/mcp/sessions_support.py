"""Conversations for the MCP tests: imported through this process's HTTP client (no broker:
the job runs in the request; the transactional database commits it for the live server)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api


def put(api: Api, *sessions: dict[str, Any]) -> dict[str, int]:
    """Import the sessions; their ids by external id."""
    status, data = api.post("/api/sessions/import", {"sessions": list(sessions)})
    assert status == 202, data
    _, got = api.get(f"/api/jobs/{data['job']['id']}")
    job = got["job"]
    assert job["status"] == "done", job
    return {row["external_id"]: row["id"] for row in job["result"]["sessions"]}


def conversation(external_id: str, texts: list[str], day: str, **fields: Any) -> dict[str, Any]:
    messages = [
        {
            "index": i,
            "role": "user" if i % 2 == 0 else "assistant",
            "text": text,
            "timestamp": f"{day}T09:{i:02d}:00Z",
        }
        for i, text in enumerate(texts)
    ]
    return {"tool": "claude-code", "external_id": external_id, **fields, "messages": messages}
