"""`ctx history` (a block's versions, and restoring one), `ctx changes` (what changed since)
and `ctx facts` (what extraction made of notes and conversations, with its evidence)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import quote

from ctx_cli.commands import App, split_list, with_query
from ctx_cli.output import escape, fields, table


def _when(text: Any) -> str:
    return str(text or "")[:16].replace("T", " ")


def _render_history(console: Any, payload: dict[str, Any]) -> None:
    current = payload["current"]
    who = f" by {current['written_by']} ({current['written_via']})" if current["written_by"] else ""
    console.print(
        f"[bold]{escape(str(payload['title']))}[/] {payload['id']} · "
        f"version {current['version']}{escape(who)}"
    )
    versions = payload.get("versions") or []
    if not versions:
        console.print("no earlier versions: the block was never changed")
        return
    rows = [
        (
            f"v{v['version']}",
            _when(v["replaced_at"]),
            f"{v['replaced_by']} ({v['replaced_via']})",
            v["title"],
            " ".join(str(v["content"]).split())[:80],
        )
        for v in versions
    ]
    table(console, ["version", "replaced", "by", "title", "content"], rows)
    if payload.get("next_before"):
        console.print(f"[dim]older: add --before {payload['next_before']}[/]")


def history(args: argparse.Namespace, app: App) -> int:
    block = quote(args.id, safe="")
    client = app.client()
    if args.restore is not None:
        payload = client.post(f"/api/blocks/{block}/history/{args.restore}/restore", {})
        app.out.emit(
            payload,
            lambda c, p: c.print(
                f"restored version {p['restored_version']} of {p['block']['id']} "
                f"as version {p['current_version']}"
            ),
        )
        return 0
    params = {"limit": args.limit, "before": args.before}
    app.out.emit(client.get(with_query(f"/api/blocks/{block}/history", params)), _render_history)
    return 0


def _render_changes(console: Any, payload: dict[str, Any]) -> None:
    changes = payload.get("changes") or []
    console.print(f"changes since {_when(payload['since'])} UTC: {payload['count']}")
    for change in changes:
        console.print(f"{_when(change['at'])}  {escape(str(change['sentence']))}", highlight=False)
    summary = payload.get("summary")
    if summary:
        console.print("[dim]" + ", ".join(f"{k} {v}" for k, v in sorted(summary.items())) + "[/]")
    if payload.get("next_cursor"):
        console.print(f"[dim]more: add --cursor {payload['next_cursor']}[/]")


def changes(args: argparse.Namespace, app: App) -> int:
    params = {
        "since": args.since,
        "limit": args.limit,
        "cursor": args.cursor,
        "scopes": split_list(args.scope),
    }
    app.out.emit(app.client().get(with_query("/api/changes", params)), _render_changes)
    return 0


def _fact_row(fact: dict[str, Any]) -> tuple[Any, ...]:
    gone = " (superseded)" if fact.get("superseded_by") else ""
    return (
        str(fact["id"])[:8],
        fact["kind"],
        f"{fact['statement']}{gone}",
        f"{float(fact['confidence']):.2f}",
        _when(fact.get("said_at")),
        " ".join(str(fact.get("evidence") or "").split())[:60],
    )


def _render_facts(console: Any, payload: dict[str, Any]) -> None:
    facts = payload.get("facts") or []
    if not facts:
        console.print("no facts yet: they are extracted from notes and imported conversations")
        return
    columns = ["id", "kind", "statement", "confidence", "said", "evidence"]
    table(console, columns, [_fact_row(f) for f in facts])


def _render_fact(console: Any, payload: dict[str, Any]) -> None:
    fact = payload["fact"]
    pairs = [
        ("statement", fact["statement"]),
        ("kind", fact["kind"]),
        ("subject · attribute", f"{fact['subject']} · {fact['attribute']}"),
        ("value", fact["value"]),
        ("confidence", f"{float(fact['confidence']):.2f}"),
        ("valid", f"{_when(fact.get('valid_from'))} to {_when(fact.get('valid_to')) or 'now'}"),
        ("superseded by", fact.get("superseded_by") or ""),
    ]
    for source in fact.get("sources") or []:
        where = source.get("block_id") or f"session {source.get('session_id')}"
        pairs.append((f"source {where}", f"“{source.get('quote', '')}” {_when(source['said_at'])}"))
    fields(console, pairs, title=str(fact["id"]))


def facts(args: argparse.Namespace, app: App) -> int:
    client = app.client()
    if args.id:
        app.out.emit(client.get(f"/api/facts/{quote(args.id, safe='')}"), _render_fact)
        return 0
    params = {
        "subject": args.subject,
        "kind": args.kind,
        "attribute": args.attribute,
        "as_of": args.as_of,
        "history": "true" if args.history else None,
        "limit": args.limit,
        "offset": args.offset,
        "scopes": split_list(args.scope),
    }
    app.out.emit(client.get(with_query("/api/facts", params)), _render_facts)
    return 0
