"""`ctx search` (lexical) and `ctx query` (retrieval, optionally synthesised)."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli.commands import App, compact, split_list
from ctx_cli.output import dumps, escape, table


def filters(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "limit": args.limit,
        "category": args.category,
        "tags": split_list(args.tag),
        "types": split_list(args.type),
        "scopes": split_list(args.scope),
    }


def _render_results(console: Any, payload: dict[str, Any]) -> None:
    results = payload.get("results", [])
    if not results:
        console.print("no results")
        return
    rows = [
        (f"{r.get('score', 0):.3f}", r["title"], r["category"], r["scope"], r["id"])
        for r in results
    ]
    table(console, ["score", "title", "category", "scope", "id"], rows)


def search(args: argparse.Namespace, app: App) -> int:
    body = compact({"query": args.query, **filters(args)})
    app.out.emit(app.client().post("/api/search", body), _render_results)
    return 0


def _render_answer(console: Any, payload: dict[str, Any]) -> None:
    from rich.panel import Panel  # lazy: the CLI starts in every hook; load on use
    from rich.text import Text  # lazy: the CLI starts in every hook; load on use

    confidence = payload.get("confidence", "")
    if payload.get("answer"):
        title = f"answer · {escape(str(confidence))}"
        console.print(Panel(Text(str(payload["answer"])), title=title, title_align="left"))
    else:
        console.print(f"[bold]{escape(str(confidence))}[/] · {payload.get('mode', '')}")
    sources = payload.get("sources") or []
    rows = [
        (
            s.get("n"),
            s.get("title"),
            s.get("category"),
            s.get("scope"),
            s.get("age_days"),
            s.get("id"),
        )
        for s in sources
    ]
    if rows:
        table(console, ["#", "title", "category", "scope", "age (days)", "id"], rows)
    if payload.get("explain") is not None:
        console.print(Text(dumps(payload["explain"])))
    total = (payload.get("timing_ms") or {}).get("total")
    if total is not None:
        console.print(f"[dim]{total} ms[/]")


def query(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {
            "query": args.question,
            **filters(args),
            "synthesize": args.synthesize,
            "explain": args.explain,
            "now": args.now,
        }
    )
    app.out.emit(app.client().post("/api/query", body), _render_answer)
    return 0
