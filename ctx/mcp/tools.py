"""The MCP tools: each one an operation of the operations layer with its input model.

A tool's parameters are the fields of the operation's input model (their JSON schema carries
the bounds, declared once in ctx/ops); the arguments are parsed by that same model, so a bad
argument gets the same message as over HTTP, and the structured result is the operation's wire
payload, the same JSON /api answers with. Only the text rendering is MCP's own (render.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import WithJsonSchema
from pydantic.fields import FieldInfo

from blobs import operations as blob_ops
from briefing import operations as briefing
from ctx import channel, ratelimit
from ctx.mcp import render, schemas
from ctx.mcp.auth import current_principal
from ctx.mcp.results import Payload, run
from ctx.ops import blocks, history, search
from ctx.ops.inputs import BlockId, Input
from ingest import operations as conversations
from memory import operations as memory_ops
from profiles import operations as profile_ops
from refindex import operations as index_ops

Operation = Callable[[Any, Any], Any]
Shape = Callable[[dict[str, Any]], dict[str, Any]]


def _param(name: str, info: FieldInfo, schema: dict[str, Any]) -> inspect.Parameter:
    """A keyword parameter whose JSON schema is the input model's for that field. Its type is
    Any, so the SDK passes the value through untouched and the model parses it: a bad
    argument gets ctx's message, never pydantic's."""
    if info.is_required():
        default: Any = inspect.Parameter.empty
    else:
        default = info.get_default(call_default_factory=True)
        if default in ([], {}):  # "not given" on the wire is null, as it always was
            outer = {k: schema.pop(k) for k in ("description",) if k in schema}
            schema = {"anyOf": [schema, {"type": "null"}], "default": None, **outer}
            default = None
    schema = {k: val for k, val in schema.items() if k != "title"}
    annotation = Annotated[Any, WithJsonSchema(schema)]
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def tool(
    operation: Operation,
    model: type[Input],
    text: Callable[[Payload], str],
    output: type,
    *,
    params: type[Input] | None = None,
    only: tuple[str, ...] | None = None,
    without: tuple[str, ...] = (),
    shape: Shape = lambda raw: raw,
    bucket: str = ratelimit.READ,
) -> Callable[..., Any]:
    """The MCP tool function of one operation: parameters from `params` (default: the input
    model), restricted to `only`; the arguments given (None means not given) are shaped into
    the model's input and parsed by it."""
    source = params or model
    fields = source.model_fields
    schemas_ = source.model_json_schema()["properties"]
    names = tuple(n for n in (only or fields) if n not in without)

    async def call(**arguments: Any) -> CallToolResult:
        raw = shape({k: val for k, val in arguments.items() if val is not None})
        principal = current_principal()  # read here: the ORM thread runs in another context

        def work() -> Any:
            data = model.parse(raw)
            if ratelimit.enabled():  # the same per-key buckets as the HTTP API
                ratelimit.take(principal, bucket)
            with channel.using("mcp"):  # on the ORM thread: a block version names MCP
                return operation(principal, data)

        return await run(work, text)

    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [_param(n, fields[n], schemas_[n]) for n in names],
        return_annotation=Annotated[CallToolResult, output],
    )
    call.__name__ = operation.__name__
    return call


class UpdateArgs(blocks.UpdateFields):
    """The update tool takes the block's id beside the fields to change."""

    id: BlockId


def _update_shape(raw: dict[str, Any]) -> dict[str, Any]:
    block_id = raw.pop("id", None)
    return {"id": block_id, "fields": raw}


FILTERS = (
    "limit",
    "min_score",
    "scopes",
    "category",
    "tags",
    "types",
    "types_exclude",
    "categories_exclude",
)
query = tool(
    search.query,
    search.QueryInput,
    render.query,
    schemas.QueryOutput,
    only=("query", *FILTERS, "synthesize"),
)
search_ = tool(
    search.search, search.SearchInput, render.search, schemas.SearchOutput, only=("query", *FILTERS)
)
store = tool(
    blocks.store,
    blocks.StoreInput,
    render.store,
    schemas.StoreOutput,
    bucket=ratelimit.WRITE,
    without=("source_time",),
)
get = tool(blocks.get, blocks.GetInput, render.block, schemas.BlockOutput)
history_ = tool(history.history, history.HistoryInput, render.history, schemas.HistoryOutput)
get_context = tool(briefing.context, briefing.ContextInput, render.context, schemas.ContextOutput)
changes = tool(briefing.changes, briefing.ChangesInput, render.changes, schemas.ChangesOutput)
recent = tool(
    blocks.recent, blocks.RecentInput, render.recent, schemas.RecentOutput, only=("limit", "scopes")
)
update = tool(
    blocks.update,
    blocks.UpdateInput,
    render.update,
    schemas.UpdateOutput,
    bucket=ratelimit.WRITE,
    params=UpdateArgs,
    only=("id", *blocks.UpdateFields.model_fields),
    without=("sensitivity",),
    shape=_update_shape,
)
delete = tool(
    blocks.delete, blocks.GetInput, render.delete, schemas.DeleteOutput, bucket=ratelimit.WRITE
)
categories = tool(
    blocks.categories,
    blocks.ScopesInput,
    render.categories,
    schemas.CategoriesOutput,
    only=("scopes",),
)
stats = tool(blocks.stats, blocks.StatsInput, render.stats, schemas.StatsOutput, only=("scopes",))
get_preferences = tool(
    profile_ops.preferences, profile_ops.ActiveInput, render.preferences, schemas.PreferencesOutput
)
list_profiles = tool(
    profile_ops.profiles_list, profile_ops.NoInput, render.profiles, schemas.ProfilesOutput
)
record_signal = tool(
    profile_ops.signal_record,
    profile_ops.SignalInput,
    render.signal,
    schemas.SignalOutput,
    bucket=ratelimit.WRITE,
    without=("created_at",),
)

recent_sessions = tool(
    conversations.sessions_list,
    conversations.SessionsInput,
    render.sessions,
    schemas.SessionsOutput,
    only=("limit", "tool", "project", "branch", "since", "scopes"),
)
session_detail = tool(
    conversations.session_get,
    conversations.DetailInput,
    render.session_detail,
    schemas.SessionDetailOutput,
    only=("id", "latest", "limit", "offset"),
)
search_sessions = tool(
    conversations.sessions_search,
    conversations.SearchInput,
    render.session_search,
    schemas.SessionSearchOutput,
    only=("query", "limit", "tool", "project", "scopes"),
)
facts = tool(memory_ops.facts_list, memory_ops.FactsInput, render.facts, schemas.FactsOutput)
KNOWLEDGE = ("context", "session", "scope", "tags")


def _knowledge(operation: Operation, model: type[Input], *fields: str) -> Callable[..., Any]:
    """A knowledge write: its own fields, the shared ones, one rendering and output."""
    return tool(
        operation,
        model,
        render.knowledge,
        schemas.KnowledgeOutput,
        bucket=ratelimit.WRITE,
        only=(*fields, *KNOWLEDGE),
    )


save_decision = _knowledge(
    conversations.save_decision, conversations.DecisionInput, "title", "rationale", "alternatives"
)
save_error_solution = _knowledge(
    conversations.save_error_solution, conversations.ErrorSolutionInput, "error", "solution"
)
save_insight = _knowledge(
    conversations.save_insight, conversations.InsightInput, "insight", "title"
)

index = tool(
    index_ops.index, index_ops.IndexInput, render.index, schemas.IndexOutput, bucket=ratelimit.WRITE
)
index_search = tool(
    index_ops.search, index_ops.SearchInput, render.index_search, schemas.IndexSearchOutput
)

# Blobs: metadata and extracted text only; the bytes never enter a conversation.
blob_search = tool(
    blob_ops.blob_search, blob_ops.SearchInput, render.blob_search, schemas.BlobSearchOutput
)
blob_get = tool(blob_ops.blob_get, blob_ops.GetInput, render.blob_get, schemas.BlobGetOutput)
