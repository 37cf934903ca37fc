"""A small HTTP/1.1 client on the standard library's sockets, for the ctx CLI's requests.

Why not httpx (or http.client): start-up. A `ctx query` is a new process every time, and
importing httpx with httpcore, h11 and their dependencies cost about 45 ms of its 120 ms
(`python -X importtime`); http.client still pulls in ssl and the email package. This module
imports socket, select and threading; ssl and the CA bundle load only for https.

What it does: requests with a body given whole (Content-Length); answers framed by
Content-Length, chunked transfer coding or the end of the connection; keep-alive connections
kept in a small thread-safe pool and checked before reuse; TLS verified against the same
bundle httpx uses (certifi, or SSL_CERT_FILE / SSL_CERT_DIR). What it does not: proxies
(ctx.cli.http uses httpx when one is configured), redirects (never followed, as before),
compression (never asked for), HTTP/2.
"""

from __future__ import annotations

import os
import select
import socket
import threading
from functools import cache
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote, urlsplit

if TYPE_CHECKING:
    import ssl

CHUNK = 65536
MAX_HEAD_BYTES = 64 * 1024  # status line and headers
MAX_IDLE = 4  # idle connections kept per pool (ingest runs two requests at a time)
PATH_SAFE = "/?&=%:@!$'()*+,;~#[]-._"  # reserved characters stay; spaces and the like are quoted


class WireError(Exception):
    """No complete answer. `timed_out` tells a spent budget (never retried) from a drop."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class Target(NamedTuple):
    tls: bool
    host: str
    port: int
    host_header: str
    prefix: str  # the base URL's path, without a trailing slash


def target(base_url: str) -> Target:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {base_url!r}")
    tls = parts.scheme == "https"
    host_header = parts.netloc.rpartition("@")[2]
    return Target(
        tls, parts.hostname, parts.port or (443 if tls else 80), host_header, parts.path.rstrip("/")
    )


@cache
def tls_context() -> ssl.SSLContext:
    """Certificate verification like httpx's: SSL_CERT_FILE / SSL_CERT_DIR when set, else
    certifi's bundle (installed with httpx), else the system's."""
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = os.environ.get("SSL_CERT_DIR") or None
    if not (cafile or capath):
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:
            pass
    return ssl.create_default_context(cafile=cafile, capath=capath)


class Answer(NamedTuple):
    status: int
    body: bytes
    keep_alive: bool


class Connection:
    def __init__(self, where: Target, *, timeout: float, connect_timeout: float) -> None:
        sock = socket.create_connection((where.host, where.port), timeout=connect_timeout)
        try:
            # The request goes out in one write; without this, a reused connection's next
            # request can wait for a delayed ACK (40 ms on Linux).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if where.tls:
                sock = tls_context().wrap_socket(sock, server_hostname=where.host)
            sock.settimeout(timeout)
        except BaseException:
            sock.close()
            raise
        self.sock = sock
        self._buffer = bytearray()

    def close(self) -> None:
        self.sock.close()

    def reusable(self) -> bool:
        """An idle connection the server has not closed (nothing to read while idle)."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable and not self._buffer

    def exchange(self, request: bytes, *, head_only: bool) -> Answer:
        self.sock.sendall(request)
        while True:
            status, headers, keep_alive = self._read_head()
            if not 100 <= status < 200:
                break  # an interim answer (103 Early Hints) precedes the real one
        if head_only or status in (204, 304):
            return Answer(status, b"", keep_alive)
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return Answer(status, self._read_chunked(), keep_alive)
        if "content-length" in headers:
            return Answer(
                status, self._read_exactly(_length(headers["content-length"])), keep_alive
            )
        return Answer(status, self._read_to_end(), False)

    # --- reading ---------------------------------------------------------------------

    def _fill(self) -> None:
        data = self.sock.recv(CHUNK)
        if not data:
            raise WireError("the server closed the connection")
        self._buffer += data

    def _read_line_block(self, end: bytes, limit: int) -> bytes:
        while (index := self._buffer.find(end)) < 0:
            if len(self._buffer) > limit:
                raise WireError("the server's answer has oversized headers")
            self._fill()
        block = bytes(self._buffer[:index])
        del self._buffer[: index + len(end)]
        return block

    def _read_head(self) -> tuple[int, dict[str, str], bool]:
        lines = self._read_line_block(b"\r\n\r\n", MAX_HEAD_BYTES).decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise WireError(f"not an HTTP answer: {lines[0][:80]!r}")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        connection = headers.get("connection", "").lower()
        keep_alive = "close" not in connection and (
            version == "HTTP/1.1" or "keep-alive" in connection
        )
        return int(code), headers, keep_alive

    def _read_exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._fill()
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = self._read_line_block(b"\r\n", MAX_HEAD_BYTES)
            size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
            if size == 0:
                while self._read_line_block(b"\r\n", MAX_HEAD_BYTES):
                    pass  # trailer fields, up to the empty line
                return b"".join(parts)
            parts.append(self._read_exactly(size))
            self._read_exactly(2)  # the CRLF after the chunk

    def _read_to_end(self) -> bytes:
        while True:
            data = self.sock.recv(CHUNK)
            if not data:
                body = bytes(self._buffer)
                self._buffer.clear()
                return body
            self._buffer += data


def _length(value: str) -> int:
    try:
        size = int(value.split(",")[0])
    except ValueError:
        raise WireError(f"the server sent a bad Content-Length: {value!r}") from None
    if size < 0:
        raise WireError(f"the server sent a bad Content-Length: {value!r}")
    return size


class Pool:
    """Connections to one server, shared by threads; at most MAX_IDLE are kept idle."""

    def __init__(
        self, base_url: str, headers: dict[str, str], *, timeout: float, connect_timeout: float
    ) -> None:
        self.where = target(base_url)
        for name, value in headers.items():
            if "\r" in value or "\n" in value:
                raise ValueError(f"the {name} header contains a line break")
        self._headers = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    def request(
        self, method: str, path: str, body: bytes | None = None, *, fresh: bool = False
    ) -> tuple[int, bytes]:
        """The status and body of one exchange; WireError when there is no full answer.
        `fresh`: a new connection even when an idle one is available."""
        conn = None if fresh else self._take()
        try:
            if conn is None:
                conn = Connection(
                    self.where, timeout=self._timeout, connect_timeout=self._connect_timeout
                )
            answer = conn.exchange(self._request(method, path, body), head_only=method == "HEAD")
        except (OSError, WireError) as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, WireError):
                raise
            raise WireError(str(exc), timed_out=isinstance(exc, TimeoutError)) from exc
        self._give_back(conn, answer.keep_alive)
        return answer.status, answer.body

    def _request(self, method: str, path: str, body: bytes | None) -> bytes:
        target_path = quote(self.where.prefix + path, safe=PATH_SAFE)
        head = f"{method} {target_path} HTTP/1.1\r\nHost: {self.where.host_header}\r\n"
        head += self._headers
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return (head + "\r\n").encode("latin-1") + (body or b"")

    def _take(self) -> Connection | None:
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            if conn.reusable():
                return conn
            conn.close()

    def _give_back(self, conn: Connection, keep_alive: bool) -> None:
        with self._lock:
            if keep_alive and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
