"""Tool results: the API's payload (or its error envelope) as structured content, plus text."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp_types import CallToolResult, TextContent

from ctx.errors import CtxError, ErrorCode

log = logging.getLogger("ctx.mcp")

Payload = Mapping[str, Any]


def ok(payload: Payload, text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"success": True, **payload},
    )


def failure(err: CtxError) -> CallToolResult:
    """An isError result whose structured content is the API's error envelope."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error ({err.code}): {err.message}")],
        structured_content=err.envelope(),
        is_error=True,
    )


T = TypeVar("T")


def _in_request_cycle(work: Callable[[], T]) -> T:
    # Outside Django's request cycle nobody drops a broken or expired connection; do what the
    # request_started/finished signals do for views.
    close_old_connections()
    try:
        return work()
    finally:
        close_old_connections()


async def orm(work: Callable[[], T]) -> T:
    """Run sync ORM code in Django's thread for it, as a view's request cycle would."""
    return await sync_to_async(_in_request_cycle, thread_sensitive=True)(work)


async def run(work: Callable[[], Payload], render: Callable[[Payload], str]) -> CallToolResult:
    """Run a tool's service call; map CtxError (and crashes) to the API's error envelope."""
    try:
        payload = await orm(work)
    except CtxError as exc:
        return failure(exc)
    except Exception:
        log.exception("MCP tool failed")
        return failure(CtxError("Internal error.", code=ErrorCode.INTERNAL_ERROR))
    return ok(payload, render(payload))
