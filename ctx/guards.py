"""ASGI guards in front of the whole application (Django and /mcp alike).

`BodyLimit` refuses a request body larger than CTX_MAX_BODY_BYTES with the 413 envelope before
the application reads it: from the Content-Length when there is one, and by counting the chunks
of a body without one. Before, Django read any body into memory and the API parsed it first
(a 9 MB body answered 500 `RequestDataTooBig`; fifty 5 MB bodies grew a web worker by 1.3 GB).

After requests whose bodies were large (≥ 4 MiB, under the limit) the memory they used is
freed and handed back to the OS (`after_large_body`).

`DatabaseUnavailable` answers 503 `service_unavailable` when a database error escapes an ASGI
application that answers outside Django's views (the /mcp guard authenticating its bearer).
Django's own views map the same errors in `ctx.errors` (exception handler and handler500).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import json
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from ctx.errors import DATABASE_RETRY_AFTER, CtxError, ErrorCode, database_unavailable

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def respond(send: Send, err: CtxError, headers: dict[str, str] | None = None) -> None:
    """Send `err` as the JSON envelope with its status."""
    body = json.dumps(err.envelope()).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": err.status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def too_large(limit: int) -> CtxError:
    return CtxError(
        f"The request body is larger than {limit} bytes.", code=ErrorCode.PAYLOAD_TOO_LARGE
    )


def declared_length(scope: Scope) -> int | None:
    """The Content-Length header as a number, or None (absent or malformed: the server's
    HTTP parser refuses a malformed one before the application runs)."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


# Bodies from this size on are rare (a 500-block batch of notes is ~1 MB): after them, the
# memory they took is freed. A full collection costs ~0.5 s with the models loaded.
LARGE_BODY = 4 * 1024 * 1024
SETTLE = 1.0  # seconds without another large body before the memory is freed
BURST_EVERY = 5.0  # during a burst of large bodies, a full collection at most this often
_last_full = -BURST_EVERY
_settle: asyncio.TimerHandle | None = None


def after_large_body() -> None:
    """Free the memory of large bodies once they stop coming (and every few seconds while
    they keep coming), after the response went out.

    Each Django request ends in reference cycles (its disconnect listener's exception holds
    the handler's frame, DRF's request, view and response point at each other), so a body and
    its parsed copies lived on until Python's rare full collection: fifty 5 MB stores left a
    web worker hundreds of MB larger, idle."""
    global _settle
    if time.monotonic() - _last_full >= BURST_EVERY:
        release_memory()
    if _settle is not None:
        _settle.cancel()
    _settle = asyncio.get_running_loop().call_later(SETTLE, release_memory)


def release_memory() -> None:
    """A full collection, then glibc hands the freed pages back (malloc_trim): it otherwise
    keeps them in the arena of the thread that freed them."""
    global _last_full
    _last_full = time.monotonic()
    gc.collect()
    if _libc is not None:
        _libc.malloc_trim(0)


def _load_libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to trim
        return None


_libc = _load_libc()


class BodyLimit:
    """413 for bodies over `limit` bytes, decided before the application reads them.

    `allowances` maps an exact path to its own limit: the blob upload (/api/blob/store) takes
    files up to CTX_BLOB_MAX_BYTES, every other path keeps `limit`. A path is compared as the
    server decoded it, so no other spelling reaches the larger limit."""

    def __init__(self, app: ASGIApp, limit: int, allowances: Mapping[str, int] | None = None):
        self.app = app
        self.limit = limit
        self.allowances = dict(allowances or {})

    def limit_for(self, scope: Scope) -> int:
        return self.allowances.get(scope.get("path", ""), self.limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.limit_for(scope)
        length = declared_length(scope)
        if length is not None and length > limit:
            return await respond(send, too_large(limit), {"connection": "close"})
        await _Counted(self.app, limit, receive, send).run(scope)


class _Counted:
    """One request whose body chunks are counted as the application reads them. Past the
    limit the client gets the 413, the application sees the client gone (Django and the MCP
    SDK then stop without answering) and anything it still sends is dropped."""

    def __init__(self, app: ASGIApp, limit: int, receive: Receive, send: Send) -> None:
        self.app, self.limit = app, limit
        self._receive, self._send = receive, send
        self.received = 0
        self.refused = False

    async def run(self, scope: Scope) -> None:
        try:
            await self.app(scope, self.receive, self.send)
        finally:
            if self.received >= LARGE_BODY:
                after_large_body()

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refused = True
                await respond(self._send, too_large(self.limit), {"connection": "close"})
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if not self.refused:
            await self._send(message)


class DatabaseUnavailable:
    """503 envelope for a database error that escaped before any response started."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            err = database_unavailable(exc)
            if err is None or started:
                raise
            await respond(send, err, {"retry-after": str(DATABASE_RETRY_AFTER)})
