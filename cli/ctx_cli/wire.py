"""The ctx CLI's direct HTTP requests: the standard library's http.client, with a small pool.

http.client does the protocol (Content-Length, chunked answers, keep-alive, TLS through
HTTPSConnection). This module adds what a command needs around it: a thread-safe pool of
kept-alive connections, each checked before reuse (one the server closed while idle is
dropped before the request is written to it, not found dead after); a connect budget apart
from the read budget; TLS verified against the bundle httpx uses (certifi, or SSL_CERT_FILE /
SSL_CERT_DIR); one error type. Not done here: proxies (ctx_cli.http uses httpx when one is
configured), redirects (never followed), compression (never asked for), HTTP/2.

Why not httpx: start-up. Every `ctx query` is a new process, and httpx with httpcore, h11 and
their dependencies cost about 45 ms of its 120 ms (`python -X importtime`). http.client costs a
few ms (mostly the email package, for header parsing) and loads ssl for HTTPSConnection
(about 4 ms, paid even for plain http: simpler than keeping OpenSSL out of sys.modules).
"""

from __future__ import annotations

import http.client
import os
import select
import threading
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

if TYPE_CHECKING:
    import ssl


MAX_IDLE = 4  # idle connections kept per pool (ingest runs two requests at a time)
JSON = "application/json"
PATH_SAFE = "/?&=%:@!$'()*+,;~#[]-._"  # reserved characters stay; spaces and the like are quoted


class WireError(Exception):
    """No complete answer. `timed_out` tells a spent budget (never retried) from a drop."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


@cache
def tls_context() -> ssl.SSLContext:
    """Certificate verification like httpx's: SSL_CERT_FILE / SSL_CERT_DIR when set, else
    certifi's bundle (installed with httpx), else the system's."""
    import ssl  # lazy: the CLI starts in every hook; load on use

    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = os.environ.get("SSL_CERT_DIR") or None
    if not (cafile or capath):
        try:
            import certifi  # lazy: the CLI starts in every hook; load on use

            cafile = certifi.where()
        except ImportError:
            pass
    return ssl.create_default_context(cafile=cafile, capath=capath)


class Pool:
    """Connections to one server, shared by threads; at most MAX_IDLE are kept idle."""

    def __init__(
        self, base_url: str, headers: dict[str, str], *, timeout: float, connect_timeout: float
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        for name, value in headers.items():
            if "\r" in value or "\n" in value:
                raise ValueError(f"the {name} header contains a line break")
        self._tls = parts.scheme == "https"
        self._host, self._port = parts.hostname, parts.port
        self._prefix = parts.path.rstrip("/")
        self._headers = headers
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        fresh: bool = False,
        content_type: str = JSON,
    ) -> tuple[int, bytes]:
        """The status and body of one exchange; WireError when there is no full answer.
        `fresh`: a new connection even when an idle one is available."""
        headers = self._headers if body is None else {**self._headers, "Content-Type": content_type}
        conn = None if fresh else self._take()
        try:
            if conn is None:
                conn = self._connect()
            conn.request(method, quote(self._prefix + path, safe=PATH_SAFE), body, headers)
            answer = conn.getresponse()
            content = answer.read()
        except (OSError, http.client.HTTPException) as exc:
            if conn is not None:
                conn.close()
            text = str(exc) or type(exc).__name__
            raise WireError(text, timed_out=isinstance(exc, TimeoutError)) from exc
        self._give_back(conn)
        return answer.status, content

    def _connect(self) -> http.client.HTTPConnection:
        conn = (
            http.client.HTTPSConnection(
                self._host, self._port, timeout=self._connect_timeout, context=tls_context()
            )
            if self._tls
            else http.client.HTTPConnection(self._host, self._port, timeout=self._connect_timeout)
        )
        try:
            conn.connect()  # with the connect budget (and the TLS handshake)
            conn.sock.settimeout(self._timeout)  # then the read budget for answers
        except BaseException:
            conn.close()
            raise
        return conn

    def _take(self) -> http.client.HTTPConnection | None:
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            if _still_open(conn):
                return conn
            conn.close()

    def _give_back(self, conn: http.client.HTTPConnection) -> None:
        # http.client drops the socket of an answer that ends the connection (Connection:
        # close, HTTP/1.0, a body read to the end of the stream).
        with self._lock:
            if conn.sock is not None and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def _still_open(conn: http.client.HTTPConnection) -> bool:
    """An idle connection the server has not closed: nothing to read while idle (a closed
    one reads as end of stream)."""
    try:
        readable, _, _ = select.select([conn.sock], [], [], 0)
    except (OSError, ValueError, TypeError):
        return False
    return not readable
