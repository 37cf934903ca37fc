"""The client's one HTTP path: JSON in and out, explicit timeouts, typed errors.

httpx is imported on first use, not at start-up: `ctx version`, `ctx --help` and the hooks'
fast paths never pay for it.
"""

from __future__ import annotations

import json
import sys
from types import ModuleType
from typing import Any, NamedTuple

from ctx import __version__
from ctx.cli import CliError

DEFAULT_TIMEOUT = 30.0
CONNECT_TIMEOUT = 5.0


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
    import httpx

    return httpx


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    if "timed out" in text.lower() or type(exc).__name__.endswith("Timeout"):
        return f"timed out ({type(exc).__name__})"
    return text or type(exc).__name__


class Client:
    def __init__(self, base_url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        httpx = _httpx()
        self.base_url = base_url
        headers = {"User-Agent": f"ctx-cli/{__version__}", "Accept": "application/json"}
        if key:
            headers["X-Context-Key"] = key
        self._http = httpx.Client(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
            # Loading the CA bundle costs 50-100 ms per start; a plain-http server never does a
            # TLS handshake (requests are relative to base_url, redirects are not followed).
            verify=base_url.startswith("https://"),
        )
        self._transport_errors: tuple[type[Exception], ...] = (httpx.TransportError,)
        self._timeouts: tuple[type[Exception], ...] = (httpx.TimeoutException,)

    def send(self, method: str, path: str, body: Any = None, *, retry: bool = True) -> Response:
        """The status and parsed JSON body, whatever the status; Unreachable if no answer.

        A dropped connection (a stale keep-alive, a restarted server worker) is retried once
        when `retry`: every call the commands make is a read or an upsert, so it is safe.
        A timeout is not retried: the budget is spent.
        """
        content = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if content is not None else {}
        for attempt in (1, 2):
            try:
                resp = self._http.request(method, path, content=content, headers=headers)
                break
            except self._transport_errors as exc:
                if not retry or attempt == 2 or isinstance(exc, self._timeouts):
                    raise Unreachable(
                        f"cannot reach ctx at {self.base_url}: {_reason(exc)}"
                    ) from exc
        return Response(resp.status_code, self._decode(resp.status_code, resp.content, path))

    def _decode(self, status: int, raw: bytes, path: str) -> Any:
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise CliError(
                f"unexpected response from {self.base_url}{path} (HTTP {status}): not JSON"
            ) from None

    def request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        """The JSON object of a successful response; ApiError with the envelope's message."""
        resp = self.send(method, path, body)
        if resp.status >= 400:
            raise error_from(resp)
        if not isinstance(resp.data, dict):
            raise CliError(f"unexpected response from {self.base_url}{path}: not a JSON object")
        return resp.data

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", path, body)

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
