"""MCP and OAuth 2.1 knobs (docs/mcp.md).

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

from ctx.config import Knob, choice, knob

KNOBS: tuple[Knob, ...] = (
    # --- MCP endpoint and OAuth 2.1 (ctx/mcp, ctx/oauth, docs/mcp.md) ---------------------------
    knob(
        "CTX_OAUTH_DCR_MODE",
        "str",
        "open",
        "Dynamic client registration: open (rate-limited; claude.ai needs it), admin, off.",
        parse=choice("off", "admin", "open"),
    ),
    knob(
        "CTX_OAUTH_MAX_CLIENTS",
        "int",
        1000,
        "Most dynamically registered OAuth clients kept; stale unused ones are pruned at the cap.",
        bounds=(1, 1_000_000),
    ),
    knob(
        "CTX_OAUTH_CIMD",
        "bool",
        False,
        "Accept OAuth client ID metadata documents (the server fetches the client's https URL).",
    ),
    knob(
        "CTX_MCP_ALLOWED_ORIGINS",
        "list",
        [],
        "Browser origins allowed to call /mcp besides this server's own (https://app.example).",
    ),
)
