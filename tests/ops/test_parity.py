"""HTTP and MCP answer every operation both expose with the same JSON: both interfaces send the
operation's one payload (ctx/ops). MCP runs on the live server through a real MCP client."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)

# Values that differ between any two calls whatever the interface (clock, fresh ids).
VOLATILE = {
    *("timing_ms", "updated_at", "created_at", "age_days", "id", "content_hash"),
    "measured_at",
}


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _mcp(live: LiveServer, cast: Cast, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    data, _, error = call(live, cast.owner.key or "", tool, args)
    assert not error, data
    return data


def _http(cast: Cast, path: str, body: dict[str, Any]) -> dict[str, Any]:
    status, data = cast.owner.post(path, body)
    assert status in (200, 201), data
    return data


@pytest.fixture
def notes(cast: Cast) -> list[str]:
    rows = [
        ("infra", "Deploys", "We deploy on Thursdays with compose v2."),
        ("infra", "Backups", "Nightly backups go to the Hetzner box."),
        ("people", "Ann", "Ann owns billing and the invoices."),
    ]
    return [cast.owner.store(category=c, title=t, content=x)["id"] for c, t, x in rows]


READS: list[tuple[str, str, Callable[[list[str]], dict[str, Any]]]] = [
    ("search", "/api/search", lambda ids: {"query": "deploy compose", "limit": 5}),
    ("query", "/api/query", lambda ids: {"query": "when do we deploy?", "limit": 3}),
    ("get", "/api/manage", lambda ids: {"id": ids[0]}),
    ("categories", "/api/manage", lambda ids: {}),
    ("stats", "/api/manage", lambda ids: {}),
]
ACTIONS = {"get": "get", "categories": "list-categories", "stats": "stats"}


@pytest.mark.parametrize(("tool", "path", "args"), READS, ids=[r[0] for r in READS])
def test_it_answers_a_read_the_same_over_http_and_mcp(
    live: LiveServer, cast: Cast, notes: list[str], tool: str, path: str, args: Any
) -> None:
    body = args(notes)
    http_body = {"action": ACTIONS[tool], **body} if tool in ACTIONS else body
    over_http = _http(cast, path, http_body)
    over_mcp = _mcp(live, cast, tool, body)
    assert _stable(over_http) == _stable(over_mcp)
    assert over_http.keys() == over_mcp.keys()  # nothing only one interface sends


def test_it_stores_updates_and_deletes_the_same_way(live: LiveServer, cast: Cast) -> None:
    note = {"category": "infra", "content": "Redis streams carry the queue.", "tags": ["q"]}
    stored_http = _http(cast, "/api/store", {**note, "title": "Queue (http)"})
    stored_mcp = _mcp(live, cast, "store", {**note, "title": "Queue (mcp)"})
    assert _stable(stored_http) == _stable(stored_mcp)
    assert stored_http["action"] == "created"

    change = {"content": "Redis streams carry the queue; Kafka was dropped.", "tags": ["q", "k"]}
    updated_http = _http(
        cast, "/api/manage", {"action": "update", "id": stored_http["id"], "fields": change}
    )
    updated_mcp = _mcp(live, cast, "update", {"id": stored_mcp["id"], **change})
    for payload in (updated_http, updated_mcp):
        payload["block"].pop("title")  # the two blocks' titles differ by construction
    assert _stable(updated_http) == _stable(updated_mcp)

    deleted_http = _http(cast, "/api/manage", {"action": "delete", "id": stored_http["id"]})
    deleted_mcp = _mcp(live, cast, "delete", {"id": stored_mcp["id"]})
    assert _stable(deleted_http) == _stable(deleted_mcp) == {"success": True, "action": "archived"}


def test_it_refuses_a_bad_value_with_the_same_message(live: LiveServer, cast: Cast) -> None:
    bad = {"category": "infra", "title": "T", "content": "x", "type": "nonsense"}
    status, over_http = cast.owner.post("/api/store", bad)
    over_mcp, _, error = call(live, cast.owner.key or "", "store", bad)
    assert status == 400 and error
    assert over_http == over_mcp  # the one envelope, the one message
