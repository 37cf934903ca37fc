"""Rate limits for MCP tool calls: the same per-key buckets as the HTTP API (ctx.ratelimit).

A read-only tool spends a read token, any other tool a write token; a refusal is a tool error
with the API's `rate_limited` envelope (details.retry_after), as the SDK reports tool failures.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from ctx import ratelimit
from ctx.mcp.auth import current_principal
from ctx.mcp.results import failure


def _kind(name: Any) -> str:
    from ctx.mcp.server import TOOLS  # the registry imports this module

    spec = next((s for s in TOOLS if s.name == name), None)
    return ratelimit.READ if spec is not None and spec.read_only else ratelimit.WRITE


async def rate_limit(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    if ctx.method != "tools/call":
        return await call_next(ctx)  # initialize, tools/list: free
    principal = current_principal()
    kind = _kind((ctx.params or {}).get("name"))
    try:
        # Redis I/O off the event loop; not the ORM thread (no database work here).
        await sync_to_async(ratelimit.take, thread_sensitive=False)(principal, kind)
    except ratelimit.RateLimited as exc:
        return failure(exc)
    return await call_next(ctx)
