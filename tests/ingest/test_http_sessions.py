"""GET /api/sessions: live sessions of the readable scopes, newest first, filtered, paged."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import Cast
from tests.ingest.support import batch, imported, message, session, turns

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(cast: Cast, django_capture_on_commit_callbacks: Any) -> Cast:
    sessions = [
        session("old", [message(0, "first", timestamp="2026-01-05T09:00:00Z")]),
        session(
            "codex-1",
            [message(0, "second", timestamp="2026-02-05T09:00:00Z")],
            tool="codex",
            project_root="/srv/api",
            git_branch="fix-auth",
        ),
        session("new", [message(0, "third", timestamp="2026-03-05T09:00:00Z")]),
    ]
    imported(cast.owner, batch(*sessions), django_capture_on_commit_callbacks)
    return cast


def _ids(data: dict[str, Any]) -> list[str]:
    return [s["external_id"] for s in data["sessions"]]


def test_it_lists_the_newest_activity_first(three: Cast) -> None:
    status, data = three.owner.get("/api/sessions")
    assert status == 200 and _ids(data) == ["new", "codex-1", "old"]
    row = data["sessions"][0]
    assert row["tool"] == "claude-code" and row["project"] == "/home/dev/shop-app"
    assert row["message_count"] == 1 and row["preview"] == "third" and row["scope"] == "acme:main"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"tool": "codex"}, ["codex-1"]),
        ({"project": "api"}, ["codex-1"]),
        ({"project": "/home/dev/shop-app"}, ["new", "old"]),
        ({"project": "shop"}, []),  # a folder name matches whole, not in part
        ({"branch": "fix-auth"}, ["codex-1"]),
        ({"since": "2026-02-01"}, ["new", "codex-1"]),
        ({"since": "2 hours ago"}, []),  # the words `ctx changes --since` reads
        ({"since": "3 years ago"}, ["new", "codex-1", "old"]),
    ],
)
def test_it_filters_by_tool_project_branch_and_time(
    three: Cast, params: dict[str, str], expected: list[str]
) -> None:
    status, data = three.owner.get("/api/sessions", **params)
    assert status == 200 and _ids(data) == expected


def test_it_pages_with_limit_and_offset(three: Cast) -> None:
    _, first = three.owner.get("/api/sessions", limit=2)
    _, rest = three.owner.get("/api/sessions", limit=2, offset=2)
    assert _ids(first) == ["new", "codex-1"] and _ids(rest) == ["old"]
    assert first["total"] == 3 and rest["offset"] == 2


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"), ({"since": "whenever"}, "since")],
)
def test_it_refuses_bad_parameters(three: Cast, params: dict[str, str], field: str) -> None:
    status, data = three.owner.get("/api/sessions", **params)
    assert status == 400 and data["error"]["details"]["field"] == field


def test_it_never_lists_another_tenants_sessions(three: Cast) -> None:
    status, data = three.outsider.get("/api/sessions")
    assert status == 200 and data["sessions"] == [] and data["total"] == 0
    foreign = three.outsider.get("/api/sessions", scopes="acme:main")
    assert foreign == three.outsider.get("/api/sessions", scopes="acme:nowhere")
    assert foreign[0] == 403


def test_it_lists_with_a_fixed_number_of_queries(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    many = [session(f"s-{i}", turns(2)) for i in range(30)]
    imported(cast.owner, batch(*many), django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        status, data = cast.owner.get("/api/sessions", limit=25)
    assert status == 200 and data["count"] == 25
    # the key and its scopes, the page (scopes joined), the total
    assert len(queries) <= 6, [q["sql"] for q in queries]


def test_it_lists_sessions_without_timestamps_last(
    three: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    undated = session("undated", [message(0, "no clock", timestamp=None)])
    imported(three.owner, batch(undated), django_capture_on_commit_callbacks)
    status, data = three.owner.get("/api/sessions")
    assert status == 200 and _ids(data) == ["new", "codex-1", "old", "undated"]
