"""A real HTTP server on 127.0.0.1:<free port>, in a thread, that answers as a test tells it:
JSON, an error status, garbage, slowly, or by resetting the connection. Providers are tested
against it over real sockets, through the real ctx.outbound."""

from __future__ import annotations

import functools
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """One request as the server received it; header names are lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    raw: bytes | None = None  # sent as is instead of `json`
    delay: float = 0.0  # seconds to wait before answering
    reset: bool = False  # read the request, then reset the connection (RST) unanswered
    reset_mid_body: bool = False  # send the headers and part of the body, then reset
    trickle: float = 0.0  # seconds between single body bytes


Behaviour = Callable[[Seen, int], Reply]  # the request and its 1-based number


@dataclass
class FakeServer:
    behaviour: Behaviour
    seen: list[Seen] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> FakeServer:
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        serve = functools.partial(self._server.serve_forever, poll_interval=0.05)
        threading.Thread(target=serve, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that gave up (timeouts) break the pipe on purpose


def _handler_for(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            seen = _read(self)
            with lock:
                fake.seen.append(seen)
                number = len(fake.seen)
            _answer(self, fake.behaviour(seen, number))

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _read(handler: BaseHTTPRequestHandler) -> Seen:
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length)
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = raw
    headers = {k.lower(): v for k, v in handler.headers.items()}
    return Seen(handler.command, handler.path, headers, body)


def _answer(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
    time.sleep(reply.delay)
    if reply.reset:
        _reset(handler)
        return
    body = reply.raw if reply.raw is not None else json.dumps(reply.json).encode()
    handler.send_response(reply.status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if reply.reset_mid_body:
        handler.wfile.write(body[: len(body) // 2])
        handler.wfile.flush()
        _reset(handler)
        return
    _write(handler, body, reply.trickle)


def _write(handler: BaseHTTPRequestHandler, body: bytes, trickle: float) -> None:
    if not trickle:
        handler.wfile.write(body)
        return
    for i in range(len(body)):
        handler.wfile.write(body[i : i + 1])
        handler.wfile.flush()
        time.sleep(trickle)


def _reset(handler: BaseHTTPRequestHandler) -> None:
    """Close with SO_LINGER 0, so the peer gets a TCP RST rather than an orderly FIN."""
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()
    handler.close_connection = True


def dead_url() -> str:
    """A URL on a local port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def json_reply(data: Any, status: int = 200) -> Behaviour:
    return lambda seen, number: Reply(status=status, json=data)
