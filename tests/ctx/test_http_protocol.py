"""The web server turns Nagle's algorithm off on every connection (ctx/runtime/http.py).

uvicorn with `--workers` binds the listening socket itself; asyncio then leaves Nagle on for
each accepted connection, and a keep-alive client waited ~40 ms for every response body. The
test runs uvicorn as the launcher configures it, on a socket bound the way uvicorn binds it for
its workers, and reads the option on the server's side of a live connection.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import httpx
import uvicorn

from ctx.runtime.launcher import HTTP_PROTOCOL, uvicorn_args


async def _ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _server_side_nodelay(http: str) -> int:
    config = uvicorn.Config(_ok, host="127.0.0.1", port=0, http=http, log_level="warning")
    sock = config.bind_socket()  # as uvicorn binds it for --workers: proto 0
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        port = sock.getsockname()[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            assert client.get("/").text == "ok"
            (conn,) = server.server_state.connections  # the keep-alive connection, still open
            sock_of_conn = conn.transport.get_extra_info("socket")
            return int(sock_of_conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    finally:
        server.should_exit = True
        thread.join(10)


def test_it_turns_nagle_off_on_connections_the_workers_accept() -> None:
    assert _server_side_nodelay(HTTP_PROTOCOL) == 1


def test_it_serves_with_that_protocol_from_the_launcher() -> None:
    args = uvicorn_args({"CTX_HOST": "127.0.0.1", "CTX_TRUST_PROXY": False}, 8000)
    assert args[args.index("--http") + 1] == HTTP_PROTOCOL
