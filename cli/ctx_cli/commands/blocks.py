"""`ctx save`, `ctx get`, `ctx delete`, `ctx categories`, `ctx stats`."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli import UsageError
from ctx_cli.commands import App, compact, split_list, stdin_text
from ctx_cli.output import escape, fields, table


def _content(args: argparse.Namespace) -> str:
    if args.content not in (None, "-"):
        return str(args.content)
    text = stdin_text(required=True, what="content")
    if not text or not text.strip():
        raise UsageError("content is empty")
    return text


def save(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {
            "scope": args.scope,
            "category": args.category,
            "title": args.title,
            "content": _content(args),
            "tags": split_list(args.tag),
            "type": args.type,
            "metadata": dict(args.meta or []) or None,
        }
    )
    result = app.client().post("/api/store", body)
    app.out.emit(
        result,
        lambda c, r: c.print(f"{r['action']} [bold]{r['id']}[/] in {escape(str(r['scope']))}"),
    )
    return 0


def _render_block(console: Any, payload: dict[str, Any]) -> None:
    block = payload["block"]
    fields(
        console,
        [
            ("id", block.get("id")),
            ("scope", block.get("scope")),
            ("category", block.get("category")),
            ("type", block.get("type")),
            ("tags", block.get("tags")),
            ("metadata", block.get("metadata")),
            ("updated", block.get("updated_at")),
        ],
        title=escape(str(block.get("title"))),
    )
    console.out(block.get("content") or "", highlight=False)


def get(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/manage", {"action": "get", "id": args.id})
    app.out.emit(payload, _render_block)
    return 0


def delete(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/manage", {"action": "delete", "id": args.id})
    app.out.emit(payload, lambda c, p: c.print(f"{p['action']} {p['id']}"))
    return 0


def categories(args: argparse.Namespace, app: App) -> int:
    body = compact({"action": "list-categories", "scopes": split_list(args.scope)})
    payload = app.client().post("/api/manage", body)
    rows = [(c["category"], c["count"]) for c in payload.get("categories", [])]
    app.out.emit(payload, lambda c, p: table(c, ["category", "blocks"], rows))
    return 0


def _render_stats(console: Any, payload: dict[str, Any]) -> None:
    stats = payload.get("stats", {})
    fields(
        console,
        [
            ("blocks", f"{stats.get('blocks', 0):,}"),
            ("awaiting embedding", f"{stats.get('awaiting_embedding', 0):,}"),
            ("archived", f"{stats.get('archived', 0):,}"),
            ("scopes", stats.get("scopes")),
            ("types", stats.get("types")),
        ],
        title="stats",
    )


def stats(args: argparse.Namespace, app: App) -> int:
    body = compact({"action": "stats", "scopes": split_list(args.scope)})
    app.out.emit(app.client().post("/api/manage", body), _render_stats)
    return 0
