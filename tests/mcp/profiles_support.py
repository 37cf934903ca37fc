"""What the MCP profile tests share: reading resources over a real MCP client session, and
a profile made through the HTTP API of the test process (signals processed inline there)."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.shared.exceptions import MCPError

from tests.conftest import Api
from tests.mcp.live import LiveServer, mcp_session


def read(server: LiveServer, token: str, uri: str) -> tuple[str, str]:
    """resources/read: (text, mime type) of its one content item; MCPError when refused."""

    async def go() -> Any:
        async with mcp_session(server, token) as client:
            return await client.read_resource(uri)

    (content,) = asyncio.run(go()).contents
    return getattr(content, "text", ""), str(content.mime_type)


def _mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError in what the client raised (its task group wraps it in a group)."""
    if isinstance(exc, MCPError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        return next(filter(None, map(_mcp_error, exc.exceptions)), None)
    return None


def refusal(server: LiveServer, token: str, uri: str) -> tuple[int, str, dict[str, Any]]:
    """The JSON-RPC error of a refused resources/read: (code, message, data)."""
    try:
        read(server, token, uri)
    except BaseException as exc:
        found = _mcp_error(exc)
        if found is None:
            raise
        return found.error.code, found.error.message, dict(found.error.data or {})
    raise AssertionError(f"{uri} was read")


def listed(server: LiveServer, token: str) -> tuple[list[str], list[str]]:
    """resources/list and resources/templates/list: the URIs and the URI templates."""

    async def go() -> Any:
        async with mcp_session(server, token) as client:
            return await client.list_resources(), await client.list_resource_templates()

    resources, templates = asyncio.run(go())
    uris = [str(r.uri) for r in resources.resources]
    return uris, [t.uri_template for t in templates.resource_templates]


def signal(api: Api, note: str, **fields: Any) -> dict[str, Any]:
    status, body = api.post("/api/signals", {"type": "dislike", "note": note, **fields})
    assert status in (200, 201), body
    return dict(body)


def create(api: Api, slug: str, **fields: Any) -> None:
    status, body = api.post("/api/profiles", {"slug": slug, "name": slug.title(), **fields})
    assert status == 201, body
