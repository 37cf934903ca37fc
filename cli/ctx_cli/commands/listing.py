"""`ctx list` (GET /api/blocks, a page at a time) and `ctx recent` (the newest changes)."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli.commands import App, compact, split_list, with_query
from ctx_cli.http import Client
from ctx_cli.output import hits


def listed(item: dict[str, Any]) -> str:
    updated = str(item.get("updated_at") or "")[:16].replace("T", " ")
    return f"{item.get('category')} · {item.get('scope')} · {updated}"


def _render(console: Any, payload: dict[str, Any]) -> None:
    results = payload.get("results") or []
    if not results:
        console.print("no blocks")
        return
    hits(console, results, listed)
    if payload.get("next_cursor"):
        console.print(f"[dim]more: add --cursor {payload['next_cursor']} (or --all)[/]")


def list_params(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "scope": split_list(args.scope),
        "category": args.category,
        "tags": split_list(args.tag),
        "type": split_list(args.type),
        "since": args.since,
        "limit": args.limit,
    }


def pages(client: Client, params: dict[str, Any], cursor: str | None) -> list[dict[str, Any]]:
    """Every page from `cursor` on, following next_cursor to the end."""
    found: list[dict[str, Any]] = []
    while True:
        page = client.get(with_query("/api/blocks", {**params, "cursor": cursor}))
        found.append(page)
        cursor = page.get("next_cursor")
        if not cursor:
            return found


def list_blocks(args: argparse.Namespace, app: App) -> int:
    params = list_params(args)
    client = app.client()
    if args.all:
        found = pages(client, params, args.cursor)
        results = [r for page in found for r in page.get("results", [])]
        payload = {"count": len(results), "results": results, "next_cursor": None}
    else:
        payload = client.get(with_query("/api/blocks", {**params, "cursor": args.cursor}))
    app.out.emit(payload, _render)
    return 0


def recent(args: argparse.Namespace, app: App) -> int:
    body = compact({"action": "recent", "limit": args.limit, "scopes": split_list(args.scope)})
    app.out.emit(app.client().post("/api/manage", body), _render)
    return 0
