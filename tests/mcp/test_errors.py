"""Protocol-level refusals: batches, unknown revisions, unknown tools."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from mcp_types import CallToolResult
from pydantic import BaseModel, ValidationError

from ctx.mcp.server import _plain
from tests.conftest import Cast
from tests.mcp.live import LiveServer, call, mcp_session

pytestmark = pytest.mark.django_db(transaction=True)

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _post(live: LiveServer, cast: Cast, body: object, **headers: str) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {cast.owner.key}",
        "Accept": "application/json, text/event-stream",
        **headers,
    }
    return httpx.post(live.mcp, json=body, headers=headers, timeout=10)


def test_it_refuses_a_batch(live: LiveServer, cast: Cast) -> None:
    resp = _post(live, cast, [PING, PING], **{"MCP-Protocol-Version": "2025-11-25"})
    assert resp.status_code == 400 and resp.json()["error"]["code"] in (-32600, -32602)


def test_it_refuses_an_unknown_protocol_revision(live: LiveServer, cast: Cast) -> None:
    resp = _post(live, cast, PING, **{"MCP-Protocol-Version": "1999-01-01"})
    assert resp.status_code == 400


def test_it_answers_an_unknown_tool_with_the_envelope(live: LiveServer, cast: Cast) -> None:
    async def go() -> CallToolResult:
        async with mcp_session(live, cast.owner.key or "") as client:
            return await client.call_tool("drop_everything", {})

    result = asyncio.run(go())
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("tool", "arguments", "message", "field"),
    [
        ("get", {}, "'id' is required.", "id"),
        ("store", {"title": "t", "content": "c"}, "'category' is required.", "category"),
    ],
)
def test_it_names_the_bad_argument_in_plain_words(
    live: LiveServer, cast: Cast, tool: str, arguments: dict, message: str, field: str
) -> None:
    data, text, error = call(live, cast.owner.key or "", tool, arguments)
    assert error and data["error"] == {
        "code": "validation_error",
        "message": message,
        "details": {"field": field},
    }
    assert "pydantic" not in text and "http" not in text


def test_it_puts_any_other_sdk_validation_text_in_plain_words() -> None:
    class getArguments(BaseModel):
        limit: int

    with pytest.raises(ValidationError) as caught:
        getArguments.model_validate({"limit": "many"})
    text = f"Error executing tool get: {caught.value}"
    assert "errors.pydantic.dev" in text  # what the SDK would have answered
    assert (
        _plain(text)
        == "'limit': Input should be a valid integer, unable to parse string as an integer."
    )
