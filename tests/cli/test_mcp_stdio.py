"""`ctx mcp-stdio`, driven by the mcp SDK's stdio client against a real uvicorn server."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.cli.conftest import free_port
from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared, tools


@pytest.fixture(scope="module")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    yield from shared(tmp_path_factory)


@pytest.fixture(autouse=True)
def as_the_live_server(settings: Any) -> None:
    """This process's own API calls behave like the server (no broker, no guard hints)."""
    settings.CELERY_BROKER_URL = ""
    settings.CTX = {**settings.CTX, "CTX_GUARD_HINTS": False}


@asynccontextmanager
async def bridge(
    url: str, key: str | None, errlog: Any = None, mode: str = "legacy", *options: str
) -> Any:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": "/nonexistent",
        "XDG_CONFIG_HOME": "/nonexistent/ctx-test",
        "CTX_BASE_URL": url,
        "CTX_KEY": key or "",
        # The client package of this checkout (cli/), not whichever one is installed.
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "cli"),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctx_cli.main", "mcp-stdio", *options], env=env
    )
    async with Client(stdio_client(params, errlog=errlog or sys.stderr), mode=mode) as client:
        yield client


def mcp_error(go: Any) -> MCPError:
    """The MCPError that running `go()` raised (anyio wraps it in exception groups)."""
    try:
        asyncio.run(go())
    except BaseException as exc:
        found: BaseException = exc
        while isinstance(found, BaseExceptionGroup) and len(found.exceptions) == 1:
            found = found.exceptions[0]
        assert isinstance(found, MCPError), repr(exc)
        return found
    raise AssertionError("no error")


def test_it_lists_the_servers_tools_unchanged(live: LiveServer, live_cast: Cast) -> None:
    """With --no-local, a pure relay: exactly the server's list."""
    key = live_cast.owner.key or ""

    async def go() -> Any:
        async with bridge(live.url, key, None, "legacy", "--no-local") as client:
            return client.instructions, (await client.list_tools()).tools

    instructions, listed = asyncio.run(go())
    direct_instructions, direct = tools(live, key)
    assert [t.name for t in listed] == [t.name for t in direct] and "store" in [
        t.name for t in listed
    ]
    assert [t.model_dump() for t in listed] == [t.model_dump() for t in direct]
    assert instructions == direct_instructions


def test_it_lists_its_local_tools_after_the_servers(live: LiveServer, live_cast: Cast) -> None:
    key = live_cast.owner.key or ""

    async def go() -> Any:
        async with bridge(live.url, key) as client:
            return (await client.list_tools()).tools

    listed = {t.name: t.model_dump() for t in asyncio.run(go())}
    direct = {t.name: t.model_dump() for t in tools(live, key)[1]}
    local = ["execute", "execute_file", "batch_execute", "fetch_and_index"]
    assert list(listed) == [*direct, *local]
    for name in set(direct) - {"index", "stats"}:
        assert listed[name] == direct[name], name  # relayed unchanged
    assert "path" in listed["index"]["input_schema"]["properties"]
    assert "content" not in listed["index"]["input_schema"]["required"]
    assert listed["execute"]["input_schema"]["required"] == ["language", "code"]


def test_it_stores_and_queries_through_the_bridge(live: LiveServer, live_cast: Cast) -> None:
    note = {"category": "infra", "title": "Deploy policy", "content": "Deploys happen on Tuesdays."}

    async def go() -> Any:
        async with bridge(live.url, live_cast.owner.key, mode="auto") as client:
            stored = await client.call_tool("store", note)
            found = await client.call_tool("query", {"query": "deploy policy"})
            return stored, found

    stored, found = asyncio.run(go())
    assert not stored.is_error and stored.structured_content["action"] == "created"
    block_id = stored.structured_content["id"]
    status, body = live_cast.owner.post("/api/manage", {"action": "get", "id": block_id})
    assert status == 200 and body["block"]["content"] == note["content"]
    assert body["block"]["scope"] == "acme:main"
    assert not found.is_error and found.structured_content["sources"][0]["id"] == block_id


def test_it_passes_tool_errors_through(live: LiveServer, live_cast: Cast) -> None:
    async def go() -> Any:
        async with bridge(live.url, live_cast.reader.key) as client:
            return await client.call_tool("store", {"category": "c", "title": "t", "content": "x"})

    result = asyncio.run(go())
    assert result.is_error and result.structured_content["error"]["code"] == "forbidden"


def test_it_says_clearly_when_the_key_is_refused(live: LiveServer, tmp_path: Path) -> None:
    errlog = (tmp_path / "stderr").open("w+")

    async def go() -> None:
        async with bridge(live.url, "ctx_wrong_key", errlog=errlog):
            pass

    message = str(mcp_error(go))
    assert message.startswith(f"ctx at {live.url}/mcp refused the API key (")
    assert message.endswith("check CTX_KEY or run `ctx init`")
    errlog.seek(0)
    assert "ctx mcp-stdio: error: ctx at" in errlog.read()


def test_it_says_clearly_when_the_server_is_down(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"

    async def go() -> None:
        async with bridge(url, "ctx_any_key"):
            pass

    assert str(mcp_error(go)).startswith(f"cannot reach ctx at {url}/mcp: ")


def test_it_exits_1_without_a_key(offline_cli: Any) -> None:
    run = offline_cli("mcp-stdio", CTX_KEY=None)
    assert run.returncode == 1 and run.stdout == ""
    assert "no API key configured: run `ctx init` or set CTX_KEY" in run.stderr
