"""/mcp over real HTTP: the stateless JSON shape claude.ai and Claude Code need."""

from __future__ import annotations

import httpx
import pytest

from ctx.selectors import KEY_NOT_ACCEPTED
from tests.conftest import Cast
from tests.mcp.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

ACCEPT = "application/json, text/event-stream"


def _initialize(version: str) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "Anthropic", "version": "1"},
        },
    }


def _post(live: LiveServer, key: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(
        live.mcp,
        json=body,
        headers={"Authorization": f"Bearer {key}", "Accept": ACCEPT, **headers},
        timeout=30,
    )


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_it_initializes_each_revision_without_a_session(
    live: LiveServer, cast: Cast, version: str
) -> None:
    resp = _post(live, cast.owner.key or "", _initialize(version))
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in resp.headers
    result = resp.json()["result"]
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "ctx"
    assert "query" in result["instructions"]


def test_it_ignores_a_session_id_sent_by_the_client(live: LiveServer, cast: Cast) -> None:
    headers = {"Mcp-Session-Id": "stale-from-another-worker", "MCP-Protocol-Version": "2025-11-25"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    resp = _post(live, cast.owner.key or "", ping, **headers)
    assert resp.status_code == 200 and resp.json()["result"] == {}  # not 404: no sessions here


def test_it_answers_a_notification_with_202(live: LiveServer, cast: Cast) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    resp = _post(live, cast.owner.key or "", note, **{"MCP-Protocol-Version": "2025-11-25"})
    assert resp.status_code == 202


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_it_refuses_get_and_delete_with_405(live: LiveServer, cast: Cast, method: str) -> None:
    resp = httpx.request(method, live.mcp, headers={"Authorization": f"Bearer {cast.owner.key}"})
    assert resp.status_code == 405
    assert resp.headers["allow"] == "POST"
    assert resp.json()["error"]["code"] == "method_not_allowed"


def test_it_challenges_a_request_without_a_token(live: LiveServer, cast: Cast) -> None:
    resp = httpx.post(live.mcp, json=_initialize("2025-11-25"), headers={"Accept": ACCEPT})
    assert resp.status_code == 401
    challenge = resp.headers["www-authenticate"]
    prm = f"{live.url}/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith("Bearer ") and f'resource_metadata="{prm}"' in challenge
    assert "error=" not in challenge  # RFC 6750 §3.1: no error code without credentials
    assert resp.json()["error"]["code"] == "unauthorized"
    assert resp.json()["error"]["message"].startswith("No API key or access token was sent")


def test_it_challenges_head_and_a_bad_token(live: LiveServer, cast: Cast) -> None:
    assert httpx.head(live.mcp).status_code == 401
    resp = _post(live, "not-a-token", _initialize("2025-11-25"))
    assert resp.status_code == 401
    assert 'error="invalid_token"' in resp.headers["www-authenticate"]
    assert resp.json()["error"]["message"].startswith("The access token was not accepted")
    unknown = _post(live, "ctx_aaaaaaaa_" + "b" * 40, _initialize("2025-11-25"))
    assert unknown.json()["error"]["message"] == KEY_NOT_ACCEPTED


def test_it_refuses_a_foreign_origin(live: LiveServer, cast: Cast) -> None:
    body = _initialize("2025-11-25")
    foreign = _post(live, cast.owner.key or "", body, Origin="https://evil.example")
    assert foreign.status_code == 403
    assert foreign.json()["error"]["code"] == "forbidden"
    own = _post(live, cast.owner.key or "", body, Origin=live.url)
    assert own.status_code == 200


def test_it_refuses_a_host_it_does_not_serve(live: LiveServer, cast: Cast) -> None:
    # DNS rebinding: the attacker's name resolves to us, the browser sends its own Host.
    resp = _post(live, cast.owner.key or "", _initialize("2025-11-25"), Host="evil.example")
    assert resp.status_code == 400


def test_it_logs_requests_with_user_agent_and_status_but_no_token(
    live: LiveServer, cast: Cast
) -> None:
    key = cast.owner.key or ""
    _post(live, key, _initialize("2025-11-25"), **{"User-Agent": "Claude-User"})
    httpx.get(live.url + "/.well-known/oauth-protected-resource/mcp")
    log = live.wait_for_log("GET /.well-known/oauth-protected-resource/mcp 200")
    assert "POST /mcp 200" in log and "ua='Claude-User'" in log
    assert key not in log
