"""Request bodies over CTX_MAX_BODY_BYTES (8 MiB) are refused with the 413 envelope before the
server reads them, on the API and on /mcp, on a real uvicorn (tests/mcp/live.py)."""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared

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
