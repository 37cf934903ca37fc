"""`ctx mcp add|list|delete`: OAuth clients for MCP connectors (tenant admins and up)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import quote

from ctx_cli.commands import App
from ctx_cli.output import escape, fields, table

CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback"


def _render_added(base_url: str) -> Any:
    def render(console: Any, payload: dict[str, Any]) -> None:
        pairs = [
            ("client id", payload["client_id"]),
            ("type", payload["client_type"]),
            ("redirect URIs", payload["redirect_uris"]),
            ("MCP URL", base_url.rstrip("/") + "/mcp"),
        ]
        if payload.get("client_secret"):
            pairs.append(("client secret", payload["client_secret"]))
        fields(console, pairs, title=escape(f"OAuth client {payload['name']}"))
        if payload.get("client_secret"):
            console.print("the client secret is shown once; store it now")

    return render


def mcp_add(args: argparse.Namespace, app: App) -> int:
    body = {
        "name": args.name,
        "redirect_uris": args.redirect_uri or [CLAUDE_CALLBACK],
        "confidential": args.confidential,
    }
    client = app.client()
    payload = client.post("/api/oauth/clients", body)
    app.out.emit(payload, _render_added(client.base_url))
    return 0


def mcp_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get("/api/oauth/clients")
    rows = [
        [
            c["client_id"],
            c["name"],
            c.get("tenant") or "—",
            c["client_type"],
            c["registration"],
            " ".join(c.get("redirect_uris") or []),
        ]
        for c in payload.get("clients", [])
    ]
    columns = ["client id", "name", "tenant", "type", "registered", "redirect URIs"]
    app.out.emit(payload, lambda c, p: table(c, columns, rows))
    return 0


def mcp_delete(args: argparse.Namespace, app: App) -> int:
    path = f"/api/oauth/clients/{quote(args.client_id, safe='')}"
    payload = app.client().request("DELETE", path)
    app.out.emit(payload, lambda c, p: c.print(f"deleted {p['client_id']} and its tokens"))
    return 0
