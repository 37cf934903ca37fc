"""Import batches in the normalised shape, and running an import through the HTTP API.

Tests run the job where the request ran it (no broker: ingest.tasks.enqueue_import imports
in-process); `django_capture_on_commit_callbacks` fires the after-commit enqueue, which the
test's wrapping transaction would otherwise hold back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tests.conftest import Api

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def message(index: int | None, text: str, role: str = "user", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "text": text, **extra}
    if index is not None:
        body["index"] = index
    body.setdefault("timestamp", f"2026-03-01T10:{(index or 0) % 60:02d}:00Z")
    return body


def turns(count: int, start: int = 0, topic: str = "topic") -> list[dict[str, Any]]:
    """`count` messages alternating user and assistant, numbered from `start`."""
    return [
        message(i, f"{topic} message {i}", role="user" if i % 2 == 0 else "assistant")
        for i in range(start, start + count)
    ]


def session(
    external_id: str = "s-1", messages: Iterable[dict[str, Any]] = (), **fields: Any
) -> dict[str, Any]:
    return {
        "tool": "claude-code",
        "external_id": external_id,
        "project_root": "/home/dev/shop-app",
        "git_branch": "main",
        **fields,
        "messages": list(messages),
    }


def batch(*sessions: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"sessions": list(sessions), "machine": "laptop", **fields}


def run_import(api: Api, body: Any, capture: Callable[..., Any]) -> tuple[int, dict[str, Any]]:
    """POST the batch; on 202 the finished job as GET /api/jobs/{id} shows it."""
    with capture(execute=True):
        status, data = api.post("/api/sessions/import", body)
    if status != 202:
        return status, data
    status, got = api.get(f"/api/jobs/{data['job']['id']}")
    assert status == 200, got
    return 202, got["job"]


def imported(api: Api, body: Any, capture: Callable[..., Any]) -> dict[str, Any]:
    status, job = run_import(api, body, capture)
    assert status == 202 and job["status"] == "done", job
    return job


def by_id(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["external_id"]: row for row in job["result"]["sessions"]}
