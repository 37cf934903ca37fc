"""The ASGI application: Django for everything, the MCP SDK's app at /mcp, one access log.

/mcp is stateless Streamable HTTP with JSON responses (claude.ai forwards no session id, and
each request may land on another worker). Before the SDK sees a request, the guard checks
Host and Origin (DNS rebinding), authenticates the bearer, and answers anything but POST with
405. Requests to /mcp, /.well-known/* and the OAuth endpoints are logged with the user agent
and status (never a token): that is how "token issued, never used" reports get diagnosed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connections
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers

from ctx import knobs
from ctx.errors import CtxError, ErrorCode
from ctx.mcp import auth
from ctx.mcp.results import orm
from ctx.mcp.server import create_server
from ctx.oauth import public
from ctx.principal import Principal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("ctx.access")
LOGGED_PREFIXES = ("/mcp", "/.well-known/", "/o/", "/authorize", "/token", "/register", "/revoke")


async def _respond(send: Send, err: CtxError, headers: dict[str, str] | None = None) -> None:
    body = json.dumps(err.envelope()).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": err.status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _challenge(origin: str, token_sent: bool) -> str:
    # RFC 6750 §3.1: an error code only when credentials were sent; RFC 9728 §5.1 metadata URL.
    error = ' error="invalid_token",' if token_sent else ""
    url = public.resource_metadata_url(origin)
    return f'Bearer{error} resource_metadata="{url}", scope="mcp"'


def origin_allowed(origin: str | None, own: str) -> bool:
    """No Origin (non-browser clients) passes; a browser origin must be ours or configured."""
    if not origin:
        return True
    allowed = {own, *(public.normalize_origin(o) for o in knobs.value("CTX_MCP_ALLOWED_ORIGINS"))}
    return public.normalize_origin(origin) in allowed


Refusal = tuple[CtxError, dict[str, str]]
NOT_POST: Refusal = (
    CtxError("Use POST: this endpoint is stateless.", code=ErrorCode.METHOD_NOT_ALLOWED),
    {"Allow": "POST"},
)


def _browser_refusal(host: str, origin: str | None, own: str) -> Refusal | None:
    """DNS rebinding: a Host we do not serve, or a browser Origin that is not allowed."""
    if not public.host_allowed(host):
        return CtxError("Invalid Host header.", code=ErrorCode.BAD_REQUEST), {}
    if not origin_allowed(origin, own):
        return CtxError("Origin not allowed.", code=ErrorCode.FORBIDDEN), {}
    return None


async def _authenticate(
    authorization: str | None, own: str
) -> tuple[Principal | None, Refusal | None]:
    """(principal, None), or (None, the 401 challenge that starts OAuth discovery)."""
    raw = auth.bearer(authorization)
    resource = public.mcp_resource(own)
    principal = None if raw is None else await orm(lambda: auth.principal_for_bearer(raw, resource))
    if principal is not None:
        return principal, None
    why = await orm(lambda: auth.bearer_refusal(raw))
    err = CtxError(why, code=ErrorCode.UNAUTHORIZED)
    return None, (err, {"WWW-Authenticate": _challenge(own, raw is not None)})


class Guard:
    """Host/Origin validation, authentication and method filtering in front of the SDK app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        own = public.origin_from(scope.get("scheme", "http"), host, headers)
        principal = None
        refusal = _browser_refusal(host, headers.get("origin"), own)
        if refusal is None:
            principal, refusal = await _authenticate(headers.get("authorization"), own)
        if refusal is None and scope["method"] != "POST":
            refusal = NOT_POST  # authenticated first: HEAD/GET without a token get the challenge
        if refusal is not None:
            return await _respond(send, *refusal)
        assert principal is not None  # _authenticate returns a principal or a refusal
        handle = auth.bind(principal)
        try:
            await self.app(scope, receive, send)
        finally:
            auth.unbind(handle)


def _logged(path: str) -> bool:
    return path.startswith(LOGGED_PREFIXES)


async def _log_request(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    status = 500  # what the client sees if the app dies before answering
    started = time.perf_counter()

    async def capture(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        await send(message)

    try:
        await app(scope, receive, capture)
    finally:
        headers = Headers(scope=scope)
        access_log.info(
            "%s %s %s %.0fms ua=%r client=%s",
            scope["method"],
            scope["path"],  # the path only: query strings and bodies may carry codes
            status,
            (time.perf_counter() - started) * 1000,
            headers.get("user-agent", ""),
            (scope.get("client") or ("-",))[0],
        )


async def _lifespan(manager: Any, receive: Receive, send: Send) -> None:
    """Run the SDK's session manager (it owns the task group stateless requests run in)."""
    await receive()  # lifespan.startup
    started = False
    try:
        async with manager.run():
            started = True
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            # The ORM thread keeps connections open; a server stopping must not leave them.
            await sync_to_async(connections.close_all, thread_sensitive=True)()
    except Exception as exc:
        phase = "shutdown" if started else "startup"
        await send({"type": f"lifespan.{phase}.failed", "message": repr(exc)})
        return
    await send({"type": "lifespan.shutdown.complete"})


def with_mcp(django_app: ASGIApp) -> ASGIApp:
    """The server's ASGI app: `django_app` plus /mcp (a fresh MCP server per call)."""
    server = create_server()
    mcp_app = server.streamable_http_app(
        streamable_http_path=public.MCP_PATH,
        stateless_http=True,
        json_response=True,
        # ctx.guards refuses larger bodies first, with the envelope (the SDK's own limit, 4 MiB
        # by default, answered a plain-text 413 and kept the connection waiting).
        max_request_body_size=knobs.configured("CTX_MAX_BODY_BYTES"),
        # The guard validates Host and Origin against ctx's own settings.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    guarded = Guard(mcp_app)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return await _lifespan(server.session_manager, receive, send)
        if scope["type"] != "http":
            return await django_app(scope, receive, send)
        if scope["path"] in (public.MCP_PATH, public.MCP_PATH + "/"):
            scope["path"] = public.MCP_PATH  # one canonical path for the SDK's router
            return await _log_request(guarded, scope, receive, send)
        if _logged(scope["path"]):
            return await _log_request(django_app, scope, receive, send)
        return await django_app(scope, receive, send)

    return app
