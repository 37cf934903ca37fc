"""Servers on raw sockets for the CLI client's tests: each test decides byte by byte what the
client gets (a reset, a chunked answer, a closed keep-alive connection, TLS)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

BODY = b'{"status": "ok"}'
OK = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
    + f"Content-Length: {len(BODY)}\r\n\r\n".encode()
    + BODY
)


class SocketServer:
    """Listens on a free port; every accepted connection goes to `handle` on a daemon thread
    and is closed after it."""

    def __init__(self, handle: Callable[[socket.socket], None], scheme: str = "http") -> None:
        self.handle = handle
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"{scheme}://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed by the test
            with conn:
                self.handle(conn)

    def close(self) -> None:
        self.sock.close()


def read_head(conn: socket.socket, data: bytes = b"") -> bytes:
    """`data` plus what arrives until the end of a request head; shorter when the peer closed."""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data
