"""The one module that talks HTTP to providers (embeddings, LLMs, rerank sidecars).

Every provider call goes through `post_json`, so this is the single seam tests may replace and
the single place that decides timeouts and retries:

- explicit connect and read timeouts on every request;
- exactly one retry when the transport fails before any byte of a response came back
  (connection refused or reset, the server hanging up before answering), because that is the
  signature of a stale pooled connection or a restarting server;
- never a retry after a timeout (the request may still be running; a second one doubles the
  wait and the provider's bill) nor on an HTTP status (the server answered; asking again
  rarely changes its mind);
- typed results and typed errors; header values, payloads and URL query strings are never
  logged, because they carry API keys.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

log = logging.getLogger("ctx.outbound")

ErrorKind = Literal["timeout", "transport", "http_status", "bad_json"]

CONNECT_TIMEOUT = 5.0  # seconds; a provider that cannot accept a TCP connection in 5 s is down
BODY_SNIPPET = 300  # characters of an error body kept for diagnosis
# Failures that happen before a response arrives and that a fresh connection may cure.
_RETRYABLE = (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


@dataclass(frozen=True)
class HttpResult:
    """A 2xx answer: its status, the parsed JSON body and the wall time of all attempts."""

    status: int
    json: Any
    elapsed_ms: float


class OutboundError(Exception):
    """A provider call failed; `kind` says how, `status` is set for `http_status`."""

    def __init__(
        self, kind: ErrorKind, message: str, *, url: str, status: int | None = None
    ) -> None:
        super().__init__(f"{kind}: {message} ({url})")
        self.kind: ErrorKind = kind
        self.message = message
        self.url = url
        self.status = status


def redact_url(url: str) -> str:
    """The URL without user info and query string, where keys sometimes travel."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid url>"
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def v1_url(base_url: str, path: str) -> str:
    """`path` under the base URL's `/v1`, whether or not the base already ends in it."""
    base = base_url.rstrip("/")
    return f"{base}/{path}" if base.endswith("/v1") else f"{base}/v1/{path}"


def _scrub(text: str, headers: Mapping[str, str]) -> str:
    """Remove header values (keys, tokens) a provider may echo back in an error body."""
    for value in headers.values():
        secret = value.split(" ", 1)[-1]  # "Bearer sk-…" echoes as "sk-…"
        if len(secret) >= 8:
            text = text.replace(secret, "***")
    return text


class _RedactHttpxUrls(logging.Filter):
    """httpx logs every request's full URL at INFO; a query string may carry a key."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_url(str(a)) if isinstance(a, httpx.URL) else a for a in record.args
            )
        return True


logging.getLogger("httpx").addFilter(_RedactHttpxUrls())

_clients: dict[int, httpx.Client] = {}
_clients_lock = threading.Lock()


def _client() -> httpx.Client:
    """One pooled client per process: a client inherited across fork (Celery prefork) would
    share its sockets with the parent."""
    pid = os.getpid()
    with _clients_lock:
        client = _clients.get(pid)
        if client is None:
            client = httpx.Client(follow_redirects=False)
            _clients[pid] = client
        return client


def post_json(
    url: str,
    payload: Any,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> HttpResult:
    """POST `payload` as JSON; return the parsed 2xx answer or raise OutboundError.

    `timeout` bounds each read and write and the whole wait for the response body;
    `connect_timeout` (capped at `timeout`) bounds opening the connection.
    """
    hdrs = {"Accept": "application/json", **(headers or {})}
    limits = httpx.Timeout(timeout, connect=min(connect_timeout, timeout))
    started = time.monotonic()
    response, body = _send_with_retry(url, payload, hdrs, limits, started + timeout)
    elapsed_ms = (time.monotonic() - started) * 1000
    return _result(url, response, body, hdrs, elapsed_ms)


def reachable(url: str, *, timeout: float = 1.0) -> bool:
    """Whether anything answers HTTP at `url` (any status: a 401 or 404 still means the
    service is up). For health reports; no retry, nothing logged but the redacted URL."""
    try:
        _client().get(url, timeout=httpx.Timeout(timeout))
    except httpx.HTTPError as exc:
        log.info("unreachable: %s (%s)", redact_url(url), type(exc).__name__)
        return False
    return True


class _Retryable(Exception):
    """Internal: the transport failed before a response started."""


def _send_with_retry(
    url: str, payload: Any, headers: dict[str, str], limits: httpx.Timeout, deadline: float
) -> tuple[httpx.Response, bytes]:
    try:
        return _attempt(url, payload, headers, limits, deadline)
    except _Retryable as first:
        log.warning("POST %s: %s before any response; retrying once", redact_url(url), first)
    try:
        return _attempt(url, payload, headers, limits, deadline)
    except _Retryable as second:
        raise _failed("transport", str(second), url) from second.__cause__


def _attempt(
    url: str, payload: Any, headers: dict[str, str], limits: httpx.Timeout, deadline: float
) -> tuple[httpx.Response, bytes]:
    """One request; the body is streamed so a failure after the headers is told apart."""
    client = _client()
    try:
        request = client.build_request("POST", url, json=payload, headers=headers, timeout=limits)
        response = client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise _failed("timeout", _describe(exc), url) from exc
    except _RETRYABLE as exc:
        raise _Retryable(_describe(exc)) from exc
    except (httpx.TransportError, httpx.InvalidURL) as exc:
        raise _failed("transport", _describe(exc), url) from exc
    try:
        return response, _read_body(response, url, deadline)
    finally:
        response.close()


def _read_body(response: httpx.Response, url: str, deadline: float) -> bytes:
    """The body, bounded by the deadline too: httpx's read timeout is per read, so a server
    trickling bytes could otherwise hold a worker for ever."""
    chunks: list[bytes] = []
    try:
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise _failed("timeout", "response body exceeded the timeout", url)
    except httpx.TimeoutException as exc:
        raise _failed("timeout", _describe(exc), url) from exc
    except httpx.TransportError as exc:  # bytes already came back: no retry
        raise _failed("transport", _describe(exc), url) from exc
    return b"".join(chunks)


def _result(
    url: str, response: httpx.Response, body: bytes, headers: Mapping[str, str], ms: float
) -> HttpResult:
    status = response.status_code
    if not 200 <= status < 300:
        snippet = _scrub(body[:BODY_SNIPPET].decode("utf-8", "replace"), headers)
        raise _failed("http_status", f"HTTP {status}: {snippet}", url, status=status)
    if status == 204 or not body.strip():
        return HttpResult(status=status, json=None, elapsed_ms=ms)
    try:
        parsed = json.loads(body)
    except ValueError:
        raise _failed("bad_json", "response is not JSON", url, status=status) from None
    log.debug("POST %s -> %d in %.0f ms", redact_url(url), status, ms)
    return HttpResult(status=status, json=parsed, elapsed_ms=ms)


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _failed(kind: ErrorKind, message: str, url: str, *, status: int | None = None) -> OutboundError:
    safe_url = redact_url(url)
    log.info("POST %s failed: %s: %s", safe_url, kind, message)
    return OutboundError(kind, message, url=safe_url, status=status)
