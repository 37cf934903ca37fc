"""MCP SDK clients for the live server (tests/support/live.py, re-exported here)."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.live import LiveServer, shared, start

__all__ = ["LiveServer", "assert_unreadable", "call", "mcp_session", "shared", "start", "tools"]


@asynccontextmanager
async def mcp_session(server: LiveServer, token: str, mode: str = "legacy", **headers: str) -> Any:
    """An MCP SDK client on /mcp with a bearer (API key or access token)."""
    async with httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}", **headers}, timeout=60
    ) as http:
        transport = streamable_http_client(server.mcp, http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


def call(server: LiveServer, token: str, tool: str, arguments: dict[str, Any]) -> Any:
    """One tools/call over a fresh session: (structured content, text, isError)."""

    async def go() -> Any:
        async with mcp_session(server, token) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(go())
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    return result.structured_content, text, bool(result.is_error)


def assert_unreadable(server: LiveServer, token: str, tool: str, arguments: dict[str, Any]) -> None:
    """A scope the key cannot read is refused with one fixed error, the same whether it exists."""
    foreign = call(server, token, tool, {**arguments, "scopes": ["acme:main"]})
    missing = call(server, token, tool, {**arguments, "scopes": ["acme:nowhere"]})
    assert foreign == missing
    assert foreign[2] and foreign[0]["error"]["code"] == "forbidden"


def tools(server: LiveServer, token: str, mode: str = "legacy") -> Any:
    async def go() -> Any:
        async with mcp_session(server, token, mode=mode) as client:
            return client.instructions, (await client.list_tools()).tools

    return asyncio.run(go())
