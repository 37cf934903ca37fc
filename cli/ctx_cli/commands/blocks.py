"""`ctx save`, `ctx get`, `ctx update`, `ctx delete`, `ctx categories`, `ctx stats`."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli import UsageError
from ctx_cli.commands import App, compact, split_list, stdin_text
from ctx_cli.output import escape, fields, table


def split_save(words: list[str]) -> tuple[str, str, str | None]:
    """`CATEGORY TITLE [CONTENT]` or `CATEGORY TITLE… - CONTENT…` (what `ctx save $PROMPT`
    passes unquoted): the category, the title and the content (None: read stdin).

    A lone `-` ends the title; the words after it are the content, or stdin when there are
    none. Without one, the second word is the title and the rest the content."""
    if len(words) < 2:
        raise UsageError("give a category and a title: ctx save CATEGORY TITLE [- CONTENT…]")
    category, rest = words[0], words[1:]
    if "-" in rest:
        cut = rest.index("-")
        title, content = " ".join(rest[:cut]), " ".join(rest[cut + 1 :])
    else:
        title, content = rest[0], " ".join(rest[1:])
    if not title.strip():
        raise UsageError("the title is empty: ctx save CATEGORY TITLE [- CONTENT…]")
    return category, title, content or None


def read_content(given: str | None) -> str:
    """The given text, or stdin's for None or `-`; empty text is a usage error."""
    if given not in (None, "-"):
        return str(given)
    text = stdin_text(required=True, what="content")
    if not text or not text.strip():
        raise UsageError("content is empty")
    return text


def save(args: argparse.Namespace, app: App) -> int:
    category, title, content = split_save(args.words)
    body = compact(
        {
            "scope": args.scope,
            "category": category,
            "title": title,
            "content": read_content(content),
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


def update(args: argparse.Namespace, app: App) -> int:
    changes = compact(
        {
            "title": args.title,
            "category": args.category,
            "content": None if args.content is None else read_content(args.content),
            "tags": split_list(args.tag) if args.tag is not None else None,
            "type": args.type,
            "metadata": dict(args.meta) if args.meta else None,
        }
    )
    if args.tag is not None and "tags" not in changes:
        changes["tags"] = []  # `--tag ""` clears them
    if not changes:
        raise UsageError("nothing to change: give --title, --category, --content, --tag, ...")
    payload = app.client().post(
        "/api/manage", {"action": "update", "id": args.id, "fields": changes}
    )
    block = payload["block"]
    app.out.emit(payload, lambda c, p: c.print(f"updated [bold]{block['id']}[/]"))
    return 0


def delete(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/manage", {"action": "delete", "id": args.id})
    app.out.emit(payload, lambda c, p: c.print(f"{p['action']} {p['id']}"))
    return 0


def restore(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/manage", {"action": "restore", "id": args.id})
    app.out.emit(payload, lambda c, p: c.print(f"restored {p['block']['id']}"))
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
            ("digests", f"{stats.get('digests', 0):,}"),
            ("scopes", stats.get("scopes")),
            ("types", stats.get("types")),
            ("storage", _storage(stats.get("storage") or {})),
            ("dream", _backlog(stats.get("dream"))),
        ],
        title="stats",
    )


def _storage(per_scope: dict[str, Any]) -> str:
    return ", ".join(f"{name} {_size(m.get('bytes', 0))}" for name, m in per_scope.items()) or "—"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return ""


def _backlog(dream: dict[str, Any] | None) -> str:
    """Dream Mode's backlog in words: `on: 12 due now, 40 cooling down (3 due within the hour)`."""
    if not dream:
        return "—"
    return (
        f"{dream.get('mode')}: {dream.get('pickable_now', 0):,} due now, "
        f"{dream.get('in_cooldown', 0):,} cooling down "
        f"({dream.get('due_next_hour', 0):,} due within the hour), "
        f"{dream.get('never_dreamed', 0):,} never dreamed"
    )


def stats(args: argparse.Namespace, app: App) -> int:
    if getattr(args, "session", None) is not None:  # local figures: no request
        from ctx_cli.commands.execute import session_stats

        return session_stats(args, app)
    body = compact({"action": "stats", "scopes": split_list(args.scope)})
    app.out.emit(app.client().post("/api/manage", body), _render_stats)
    return 0
