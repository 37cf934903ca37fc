"""A real `uvicorn ctx.asgi:app` on a free port, on pytest-django's test database.

Started once per test session in a subprocess, exactly as `make run` serves the app. Tests that
talk to it use a transactional database (`django_db(transaction=True)`), so rows the test
writes are committed and visible to the server, and the server's writes to the test.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class LiveServer:
    url: str
    log: Path

    @property
    def mcp(self) -> str:
        return self.url + "/mcp"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_log(self, needle: str, timeout: float = 5) -> str:
        """The log once it contains `needle` (lines are written after the response is sent)."""
        deadline = time.monotonic() + timeout
        while needle not in (text := self.log_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert needle in text, text[-2000:]
        return text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _test_database_url(name: str) -> str:
    """DATABASE_URL with pytest-django's test database (`test_<name>`) in place of the name."""
    return urlsplit(os.environ["DATABASE_URL"])._replace(path="/" + name).geturl()


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("uvicorn exited:\n" + log.read_text(errors="replace")[-4000:])
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("uvicorn did not become healthy:\n" + log.read_text()[-4000:])


def start(db_name: str, secret_key: str, log: Path, **env: str) -> Iterator[LiveServer]:
    port = _free_port()
    environ = {
        **os.environ,
        "DATABASE_URL": _test_database_url(db_name),
        "CTX_SECRET_KEY": secret_key,  # the API keys' HMAC pepper must match the test process
        "CTX_LOG_LEVEL": "info",
        **env,
    }
    args = ["-m", "uvicorn", "ctx.asgi:app", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield LiveServer(url=url, log=log)
    finally:
        proc.terminate()
        proc.wait(15)


_shared: dict[str, LiveServer] = {}


def shared(tmp_path_factory: Any) -> Iterator[LiveServer]:
    """One server for the whole session, whichever conftest (tests/mcp, tests/oauth) asks first.

    The first caller owns the process and stops it at its teardown, which comes before
    pytest-django drops the test database (its fixture depends on django_db_setup).
    """
    if "server" in _shared:
        yield _shared["server"]
        return
    from django.conf import settings
    from django.db import connection

    log = tmp_path_factory.mktemp("mcp-live") / "uvicorn.log"
    # Near-duplicate hints embed every stored text; they are dream's feature, tested there.
    # The pool as `make run` gives the web server.
    env = {"CTX_GUARD_HINTS": "false", "CTX_DB_POOL": "4"}
    for server in start(connection.settings_dict["NAME"], settings.SECRET_KEY, log, **env):
        _shared["server"] = server
        try:
            yield server
        finally:
            del _shared["server"]


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


def tools(server: LiveServer, token: str, mode: str = "legacy") -> Any:
    async def go() -> Any:
        async with mcp_session(server, token, mode=mode) as client:
            return client.instructions, (await client.list_tools()).tools

    return asyncio.run(go())
