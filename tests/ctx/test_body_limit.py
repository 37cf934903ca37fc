"""Request bodies over CTX_MAX_BODY_BYTES (8 MiB) are refused with the 413 envelope before the
server reads them, on the API and on /mcp, on a real uvicorn (tests/mcp/live.py)."""

from __future__ import annotations

import json
import re
import select
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from django.db import connection

from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared, start

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 8 * 1024 * 1024
CHUNK = 1024 * 1024


@pytest.fixture(scope="session")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    yield from shared(tmp_path_factory)  # the suite's one live server (tests/mcp/live.py)


def _connect(live: LiveServer) -> socket.socket:
    parts = urlsplit(live.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=20)
    return sock


def _head(path: str, key: str | None, *framing: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    # /mcp authenticates with a bearer and wants both media types before it reads a body.
    lines += [f"X-Context-Key: {key}", f"Authorization: Bearer {key}"] if key else []
    lines += ["Accept: application/json, text/event-stream"]
    return ("\r\n".join([*lines, *framing]) + "\r\n\r\n").encode()


def _response(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """Status and JSON body of the one response on `sock` (the server closes after it; it
    resets the connection when part of the request was left unread)."""
    raw = b""
    try:
        while chunk := sock.recv(65536):
            raw += chunk
    except ConnectionResetError:
        assert raw, "reset before any response"
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _answered(sock: socket.socket) -> bool:
    return bool(select.select([sock], [], [], 0)[0])


def _assert_too_large(status: int, body: dict[str, Any]) -> None:
    assert status == 413
    assert body["success"] is False and body["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize("path", ["/api/store", "/mcp"])
def test_it_refuses_a_declared_length_over_the_limit_without_reading_it(
    live: LiveServer, cast: Cast, path: str
) -> None:
    with _connect(live) as sock:
        # Only the headers: a server that waited for the body would never answer.
        sock.sendall(_head(path, cast.owner.key, f"Content-Length: {LIMIT + 1}"))
        _assert_too_large(*_response(sock))


@pytest.mark.parametrize("path", ["/api/store/batch", "/mcp"])
def test_it_refuses_a_chunked_body_once_it_passes_the_limit(
    live: LiveServer, cast: Cast, path: str
) -> None:
    with _connect(live) as sock:
        sock.sendall(_head(path, cast.owner.key, "Transfer-Encoding: chunked"))
        sent = _send_chunks(sock, LIMIT + 2 * CHUNK)
        _assert_too_large(*_response(sock))
    assert sent <= LIMIT + 2 * CHUNK


def _send_chunks(sock: socket.socket, most: int) -> int:
    """Send 1 MiB chunks until the server answers (or `most` bytes, then the end of the
    body, which a server that read everything answers); return the bytes sent."""
    sent = 0
    try:
        while sent < most and not _answered(sock):
            sock.sendall(f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n")
            sent += CHUNK
        if not _answered(sock):
            sock.sendall(b"0\r\n\r\n")
    except (ConnectionResetError, BrokenPipeError):
        pass  # the server answered and closed while we were still sending
    return sent


def test_it_still_takes_a_large_body_under_the_limit(live: LiveServer, cast: Cast) -> None:
    blocks = [
        {"category": "bulk", "title": f"b{i}", "content": "x" * 11_000 + str(i)} for i in range(400)
    ]
    body = json.dumps({"blocks": blocks}).encode()
    assert 4 * CHUNK < len(body) < LIMIT
    with _connect(live) as sock:
        head = _head("/api/store/batch", cast.owner.key, f"Content-Length: {len(body)}")
        sock.sendall(head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n") + body)
        status, answer = _response(sock)
    assert status == 200 and len(answer["results"]) == 400


def _rss_mb(pid: int) -> float:
    status = (Path("/proc") / str(pid) / "status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


def _uvicorn_pid(port: int) -> int:
    """The uvicorn process serving `port` (a child of this test run)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_text().split("\0")
            except OSError:
                continue
            if "uvicorn" in cmdline and str(port) in cmdline:
                return int(entry.name)
    raise AssertionError(f"no uvicorn on port {port}")


@pytest.fixture
def own_server(settings: Any, tmp_path: Path) -> Iterator[LiveServer]:
    name = connection.settings_dict["NAME"]
    yield from start(name, settings.SECRET_KEY, tmp_path / "uvicorn.log", CTX_DB_POOL="6")


def _store_all(server: LiveServer, key: str, body: dict[str, Any], count: int) -> set[int]:
    headers = {"X-Context-Key": key}
    with (
        httpx.Client(base_url=server.url, headers=headers, timeout=60) as c,
        ThreadPoolExecutor(5) as pool,
    ):
        return set(pool.map(lambda _: c.post("/api/store", json=body).status_code, range(count)))


def test_it_gives_back_the_memory_of_large_bodies(own_server: LiveServer, cast: Cast) -> None:
    """Fifty 5 MB stores (each refused: a block holds at most 50 KB) on a server of its own:
    the memory they took is freed and returned, not kept by the worker (it grew by hundreds
    of MB for good, the bodies held by reference cycles until a rare full collection)."""
    pid = _uvicorn_pid(urlsplit(own_server.url).port or 0)
    small = {"category": "m", "title": "warm", "content": "warm up the worker"}
    assert _store_all(own_server, cast.owner.key or "", small, 1) == {201}
    before = _rss_mb(pid)
    big = {"category": "m", "title": "big", "content": "x" * (5 * CHUNK)}
    assert _store_all(own_server, cast.owner.key or "", big, 50) == {413}
    deadline = time.monotonic() + 15  # freed once the large bodies stopped (ctx.guards)
    while _rss_mb(pid) - before >= 100 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _rss_mb(pid) - before < 100
