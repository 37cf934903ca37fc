"""MCP resources: the user's preference prompt and profiles, read like the tools run: under the
caller's principal (set by the /mcp guard), spending the key's read bucket, through the same
operations as the HTTP API.

- `preferences://active`: the active profile's prompt (Markdown), what `get_preferences` and
  `GET /api/preferences/active` answer.
- `profiles://list`: the profiles as JSON (the `list_profiles` payload).
- `profiles://{slug}`: one profile's prompt (Markdown); resources/list names one per profile
  the key can read.

A ctx error becomes a JSON-RPC error whose `data.error` is the API's error envelope body:
not_found and validation_error as INVALID_PARAMS (what the SDK answers for an unknown
resource), anything else (rate_limited, forbidden) as SERVER_REFUSED.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types import Resource as MCPResource

from ctx import ratelimit
from ctx.errors import CtxError, ErrorCode
from ctx.mcp.auth import current_principal
from ctx.mcp.results import orm
from ctx.principal import Principal
from profiles import operations as ops
from profiles import selectors

ACTIVE_URI = "preferences://active"
LIST_URI = "profiles://list"
PROFILE_URI = "profiles://{slug}"
MARKDOWN, JSON = "text/markdown", "application/json"
SERVER_REFUSED = -32010  # implementation-defined band (-32000..-32019)
CLIENT_ERRORS = {ErrorCode.NOT_FOUND, ErrorCode.VALIDATION_ERROR}


async def _read(uri: str, work: Callable[[Principal], Any]) -> Any:
    principal = current_principal()  # read here: the ORM thread runs in another context

    def run() -> Any:
        if ratelimit.enabled():  # the same per-key buckets as the API and the tools
            ratelimit.take(principal, ratelimit.READ)
        return work(principal)

    try:
        return await orm(run)
    except CtxError as err:
        code = INVALID_PARAMS if err.code in CLIENT_ERRORS else SERVER_REFUSED
        raise MCPError(code, err.message, {"uri": uri, **err.envelope()}) from None


def _prompt(slug: str | None) -> Callable[[Principal], str]:
    def work(principal: Principal) -> str:
        return ops.preferences(principal, ops.ActiveInput.parse({"profile": slug}))["prompt"]

    return work


async def active() -> str:
    """The prompt of the key's active profile (Markdown)."""
    return str(await _read(ACTIVE_URI, _prompt(None)))


async def listing() -> str:
    """The key's profiles (JSON, as `list_profiles` returns them)."""
    payload = await _read(LIST_URI, lambda p: ops.profiles_list(p, ops.NoInput()))
    return json.dumps(payload, ensure_ascii=False)


async def profile(slug: str) -> str:
    """One profile's prompt (Markdown)."""
    uri = PROFILE_URI.format(slug=slug)
    return str(await _read(uri, _prompt(slug)))


def _entries(principal: Principal) -> list[MCPResource]:
    return [
        MCPResource(
            uri=PROFILE_URI.format(slug=row.slug),
            name=row.slug,
            title=f"{row.name} (profile)",
            description=f"The {row.slug} profile's prompt, version {row.version}.",
            mime_type=MARKDOWN,
        )
        for row in selectors.profiles_for(principal)
    ]


async def profile_entries() -> list[MCPResource]:
    """One resource per profile the caller can read, for resources/list."""
    return list(await _read(LIST_URI, _entries))


def register(server: MCPServer) -> None:
    server.resource(
        ACTIVE_URI,
        name="active-preferences",
        title="Active preferences",
        description="The user's standing instructions for how to answer (the active profile's "
        "prompt). Read it at the start of a session.",
        mime_type=MARKDOWN,
    )(active)
    server.resource(
        LIST_URI,
        name="profiles",
        title="Preference profiles",
        description="The user's preference profiles: slug, name, version, which is active.",
        mime_type=JSON,
    )(listing)
    server.resource(
        PROFILE_URI,
        name="profile",
        title="A preference profile",
        description="One profile's prompt by slug (see profiles://list).",
        mime_type=MARKDOWN,
    )(profile)
