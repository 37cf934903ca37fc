"""The client's one HTTP path: JSON in and out, explicit timeouts, typed errors.

Nothing heavy is imported at start-up: the HTTP client (ctx_cli.wire) on the first
request, httpx only when a proxy is configured.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any, NamedTuple

from ctx_cli import CliError, __version__

DEFAULT_TIMEOUT = 30.0
CONNECT_TIMEOUT = 5.0
JSON, OCTET = "application/json", "application/octet-stream"


class ApiError(CliError):
    """The server answered with the error envelope; `details` as the server sent them."""

    def __init__(self, message: str, *, code: str | None, status: int, details: Any) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.details = details if isinstance(details, dict) else {}


class Unreachable(CliError):
    """No answer: refused, timed out, DNS, TLS."""


class Response(NamedTuple):
    status: int
    data: Any


def _httpx() -> ModuleType:
    # httpx imports its optional command-line tool (click, pygments, rich.progress) when those
    # are installed; this client never uses it and it costs tens of ms on every start.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    import httpx  # lazy: the CLI starts in every hook; load on use

    return httpx


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    if "timed out" in text.lower() or type(exc).__name__.endswith("Timeout"):
        return f"timed out ({type(exc).__name__})"
    return text or type(exc).__name__


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def proxy_configured(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment names a proxy (any case), which only httpx honours here."""
    return any(name.lower() in PROXY_VARIABLES and value for name, value in environ.items())


class Client:
    """JSON over HTTP/1.1 to one server.

    Direct connections use the standard library's http.client (ctx_cli.wire): httpx and its
    dependencies took half of a `ctx query`'s 120 ms before the request was even sent
    (`python -X importtime`). When the environment configures a proxy, requests go through
    httpx, which implements the proxy variables (HTTP(S)_PROXY, ALL_PROXY, NO_PROXY).
    """

    def __init__(self, base_url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base_url = base_url
        headers = {"User-Agent": f"ctx-cli/{__version__}", "Accept": "application/json"}
        if key:
            headers["X-Context-Key"] = key
        connect = min(timeout, CONNECT_TIMEOUT)
        self._transport: _Transport = (
            _HttpxTransport(base_url, headers, timeout, connect)
            if proxy_configured()
            else _WireTransport(base_url, headers, timeout, connect)
        )

    def send(
        self, method: str, path: str, body: Any = None, *, retry: bool = True, fresh: bool = False
    ) -> Response:
        """The status and parsed JSON body, whatever the status; Unreachable if no answer.

        A dropped connection (a stale keep-alive, a restarted server worker) is retried once
        when `retry`: every call the commands make is a read or an upsert, so it is safe.
        A timeout is not retried: the budget is spent. `fresh` opens a new connection for
        this request instead of reusing an idle one (see ctx_cli.ingest.upload).
        """
        content = None if body is None else json.dumps(body).encode("utf-8")
        for attempt in (1, 2):
            try:
                status, raw = self._transport.request(method, path, content, fresh=fresh)
                break
            except _Dropped as exc:
                if not retry or attempt == 2 or exc.timed_out:
                    raise Unreachable(
                        f"cannot reach ctx at {self.base_url}: {exc.reason}"
                    ) from exc.__cause__
        return Response(status, self._decode(status, raw, path))

    def _decode(self, status: int, raw: bytes, path: str) -> Any:
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise CliError(
                f"unexpected response from {self.base_url}{path} (HTTP {status}): not JSON"
            ) from None

    def request(
        self, method: str, path: str, body: Any = None, *, fresh: bool = False
    ) -> dict[str, Any]:
        """The JSON object of a successful response; ApiError with the envelope's message."""
        resp = self.send(method, path, body, fresh=fresh)
        if resp.status >= 400:
            raise error_from(resp)
        if not isinstance(resp.data, dict):
            raise CliError(f"unexpected response from {self.base_url}{path}: not a JSON object")
        return resp.data

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def upload(self, path: str, content: bytes) -> dict[str, Any]:
        """POST raw bytes (a blob); the JSON object of a successful answer, else ApiError."""
        try:
            status, raw = self._transport.request("POST", path, content, fresh=False, binary=True)
        except _Dropped as exc:  # not retried: the bytes may have been stored
            raise Unreachable(f"cannot reach ctx at {self.base_url}: {exc.reason}") from None
        resp = Response(status, self._decode(status, raw, path))
        if resp.status >= 400:
            raise error_from(resp)
        if not isinstance(resp.data, dict):
            raise CliError(f"unexpected response from {self.base_url}{path}: not a JSON object")
        return resp.data

    def download(self, path: str) -> bytes:
        """GET raw bytes (a blob); an error answer is the JSON envelope (ApiError)."""
        for attempt in (1, 2):  # a read: safe to retry once on a dropped connection
            try:
                status, raw = self._transport.request("GET", path, None, fresh=False)
                break
            except _Dropped as exc:
                if attempt == 2 or exc.timed_out:
                    raise Unreachable(
                        f"cannot reach ctx at {self.base_url}: {exc.reason}"
                    ) from None
        if status >= 400:
            raise error_from(Response(status, self._decode(status, raw, path)))
        return raw

    def post(self, path: str, body: dict[str, Any], *, fresh: bool = False) -> dict[str, Any]:
        return self.request("POST", path, body, fresh=fresh)

    def close(self) -> None:
        self._transport.close()


class _Dropped(Exception):
    """No complete answer: why, and whether it was a timeout (never retried)."""

    def __init__(self, reason: str, *, timed_out: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out


class _Transport:
    def request(
        self, method: str, path: str, content: bytes | None, *, fresh: bool, binary: bool = False
    ) -> tuple[int, bytes]:
        """`binary`: the content is raw bytes (application/octet-stream), not JSON."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _WireTransport(_Transport):
    def __init__(
        self, base_url: str, headers: dict[str, str], timeout: float, connect: float
    ) -> None:
        from ctx_cli import wire  # lazy: the CLI starts in every hook; load on use

        self._wire = wire
        try:
            self._pool = wire.Pool(base_url, headers, timeout=timeout, connect_timeout=connect)
        except ValueError as exc:  # a line break in the key (from the environment)
            raise CliError(str(exc)) from None

    def request(
        self, method: str, path: str, content: bytes | None, *, fresh: bool, binary: bool = False
    ) -> tuple[int, bytes]:
        kind = OCTET if binary else JSON
        try:
            return self._pool.request(method, path, content, fresh=fresh, content_type=kind)
        except self._wire.WireError as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            raise _Dropped(_reason(cause), timed_out=exc.timed_out) from exc

    def close(self) -> None:
        self._pool.close()


class _HttpxTransport(_Transport):
    def __init__(
        self, base_url: str, headers: dict[str, str], timeout: float, connect: float
    ) -> None:
        httpx = self._httpx = _httpx()
        self._http = httpx.Client(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=connect),
            # Loading the CA bundle costs 50-100 ms per start; a plain-http server never does a
            # TLS handshake (requests are relative to base_url, redirects are not followed).
            verify=base_url.startswith("https://"),
        )

    def request(
        self, method: str, path: str, content: bytes | None, *, fresh: bool, binary: bool = False
    ) -> tuple[int, bytes]:
        kind = OCTET if binary else JSON
        headers = {"Content-Type": kind} if content is not None else {}
        try:
            resp = self._http.request(method, path, content=content, headers=headers)
        except self._httpx.TransportError as exc:
            timed_out = isinstance(exc, self._httpx.TimeoutException)
            raise _Dropped(_reason(exc), timed_out=timed_out) from exc
        return resp.status_code, resp.content

    def close(self) -> None:
        self._http.close()


def error_from(resp: Response) -> ApiError:
    error = resp.data.get("error") if isinstance(resp.data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return ApiError(
            str(error["message"]),
            code=error.get("code"),
            status=resp.status,
            details=error.get("details"),
        )
    return ApiError(
        f"the server answered HTTP {resp.status}", code=None, status=resp.status, details=None
    )
