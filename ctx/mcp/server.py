"""The MCP server: instructions, the tool registry (titles, descriptions, annotations) and the
resources (ctx/mcp/resources.py)."""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from mcp_types import Resource as MCPResource

from ctx import __version__
from ctx.errors import CtxError, ErrorCode, ValidationFailed
from ctx.mcp import resources, tools
from ctx.mcp.descriptions import DESCRIPTIONS, INSTRUCTIONS
from ctx.mcp.results import failure


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    fn: Callable[..., Any]
    read_only: bool
    destructive: bool = False
    # A repeated call leaves the same state (store of identical content is a no-op, archiving
    # twice archives once); record_signal without an id records a second signal.
    idempotent: bool = True

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=self.destructive,
            idempotent_hint=self.idempotent,
            open_world_hint=False,  # confined to ctx's own store
        )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("query", "Ask the knowledge base", tools.query, read_only=True),
    ToolSpec("search", "Search by keywords", tools.search_, read_only=True),
    ToolSpec("get", "Read a block", tools.get, read_only=True),
    ToolSpec("recent", "Recently updated blocks", tools.recent, read_only=True),
    ToolSpec("history", "A block's earlier versions", tools.history_, read_only=True),
    ToolSpec("get_context", "Context for a system prompt", tools.get_context, read_only=True),
    ToolSpec("changes", "What changed since", tools.changes, read_only=True),
    # store replaces the block with the same category and title: not purely additive.
    ToolSpec("store", "Store a knowledge block", tools.store, read_only=False, destructive=True),
    ToolSpec("update", "Update a block", tools.update, read_only=False, destructive=True),
    ToolSpec("delete", "Archive a block", tools.delete, read_only=False, destructive=True),
    ToolSpec("categories", "List categories", tools.categories, read_only=True),
    ToolSpec("stats", "Knowledge base statistics", tools.stats, read_only=True),
    ToolSpec("get_preferences", "The user's answer preferences", tools.get_preferences, True),
    ToolSpec("list_profiles", "List preference profiles", tools.list_profiles, read_only=True),
    ToolSpec(
        "record_signal",
        "Record feedback on an answer",
        tools.record_signal,
        read_only=False,
        idempotent=False,
    ),
    ToolSpec("recent_sessions", "Recent AI sessions", tools.recent_sessions, read_only=True),
    ToolSpec("session_detail", "Read a session", tools.session_detail, read_only=True),
    ToolSpec("search_sessions", "Search past sessions", tools.search_sessions, read_only=True),
    ToolSpec("facts", "Facts learned from notes and sessions", tools.facts, read_only=True),
    # Additive: they create (or supersede, keeping the old block), never replace or delete.
    ToolSpec("save_decision", "Save a decision", tools.save_decision, read_only=False),
    ToolSpec("save_error_solution", "Save an error and its fix", tools.save_error_solution, False),
    ToolSpec("save_insight", "Save an insight", tools.save_insight, read_only=False),
    # index replaces the label's earlier chunks, as store replaces a block.
    ToolSpec("index", "Index a document", tools.index, read_only=False, destructive=True),
    ToolSpec("index_search", "Search indexed documents", tools.index_search, read_only=True),
    ToolSpec("blob_search", "Find attached files", tools.blob_search, read_only=True),
    ToolSpec("blob_get", "Read an attached file's text", tools.blob_get, read_only=True),
)


def _bare_error_text(result: HandlerResult) -> str | None:
    """The text of an error result that has no structured content (the SDK's own errors)."""
    if isinstance(result, CallToolResult):
        result = result.model_dump(by_alias=True, mode="json")
    if not isinstance(result, dict) or not result.get("isError"):
        return None
    if result.get("structuredContent") is not None:
        return None  # one of ours: it carries the envelope already
    texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return "\n".join(texts) or "Invalid call."


def _argument_error(params: Mapping[str, Any]) -> ValidationFailed | None:
    """The first argument the named tool does not declare (the SDK's argument model would drop
    it silently; the HTTP API rejects an unknown field, so MCP does too), else the first
    required one missing (the SDK would answer pydantic's text with its URL): the API's
    message naming the field either way."""
    spec = next((s for s in TOOLS if s.name == params.get("name")), None)
    arguments = params.get("arguments") or {}
    if spec is None or not isinstance(arguments, dict):
        return None
    declared = inspect.signature(spec.fn).parameters
    unknown = next((name for name in arguments if name not in declared), None)
    if unknown is not None:
        return ValidationFailed(f"Unknown field '{unknown}'.", details={"field": unknown})
    required = (n for n, p in declared.items() if p.default is inspect.Parameter.empty)
    missing = next((name for name in required if name not in arguments), None)
    if missing is not None:
        return ValidationFailed(f"'{missing}' is required.", details={"field": missing})
    return None


# pydantic's report: "<n> validation error(s) for <model>", then per error the field's path on
# one line and "  <message> [type=…]" and "For further information visit <url>" below it.
_PYDANTIC_ERROR = re.compile(r"validation errors? for \w+\n(?P<field>[^\n]+)\n\s+(?P<msg>[^\[\n]+)")


def _plain(text: str) -> str:
    """An SDK error in plain words: pydantic's first finding as "'field': message.", never
    its input dump or URL; other texts as they are."""
    found = _PYDANTIC_ERROR.search(text)
    if found is None:
        return text
    return f"'{found['field'].strip()}': {found['msg'].strip().rstrip('.')}."


async def envelope_errors(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Give the SDK's own tool errors (bad arguments, unknown tool) the API's error envelope."""
    refused = _argument_error(ctx.params or {}) if ctx.method == "tools/call" else None
    if refused is not None:
        return failure(refused)
    result = await call_next(ctx)
    text = _bare_error_text(result) if ctx.method == "tools/call" else None
    if text is None:
        return result
    name = (ctx.params or {}).get("name")
    known = any(spec.name == name for spec in TOOLS)
    code = ErrorCode.VALIDATION_ERROR if known else ErrorCode.NOT_FOUND
    message = _plain(text) if known else f"Unknown tool: {name}."
    return failure(CtxError(message, code=code))


class CtxServer(MCPServer):
    """resources/list also names one resource per profile the caller can read."""

    async def list_resources(self) -> list[MCPResource]:
        return [*await super().list_resources(), *await resources.profile_entries()]


def _new_server() -> MCPServer:
    # MCPServer() calls logging.basicConfig(), which would put a Rich console handler on the
    # root logger of the whole process. basicConfig does nothing while the root logger has a
    # handler, so one is there for the call only: logging stays as Django's LOGGING set it.
    root = logging.getLogger()
    placeholder = logging.NullHandler()
    root.addHandler(placeholder)
    try:
        return CtxServer(
            "ctx",
            title="ctx knowledge server",
            instructions=INSTRUCTIONS,
            version=__version__,
            middleware=[envelope_errors],
        )
    finally:
        root.removeHandler(placeholder)


def create_server() -> MCPServer:
    server = _new_server()
    for spec in TOOLS:
        server.add_tool(
            spec.fn,
            name=spec.name,
            title=spec.title,
            description=DESCRIPTIONS[spec.name],
            annotations=spec.annotations(),
        )
    resources.register(server)
    return server
