"""`ctx dream …`, `ctx guard …`, `ctx digest`, `ctx graph`: the dream app's endpoints."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli.commands import App, compact, split_list, with_query
from ctx_cli.output import fields, table

# `ctx dream enable|disable|throttle` → the server's mode names (dream.models.Mode).
MODES = {"enable": "on", "disable": "off", "throttle": "throttled"}


def scope_params(args: argparse.Namespace) -> dict[str, Any]:
    return {"scopes": split_list(getattr(args, "scope", None))}


def _end(end: dict[str, Any] | None) -> str:
    end = end or {}
    return f"{end.get('title')} ({str(end.get('id', ''))[:8]})"


# --- dream ----------------------------------------------------------------------------------


def _render_dream_stats(console: Any, payload: dict[str, Any]) -> None:
    queue = payload.get("queue") or {}
    links = payload.get("links") or {}
    fields(
        console,
        [
            ("mode", payload.get("mode")),
            ("due now", queue.get("pickable_now")),
            ("cooling down", queue.get("in_cooldown")),
            ("claimed", queue.get("claimed")),
            ("never dreamed", queue.get("never_dreamed")),
            ("awaiting embedding", queue.get("awaiting_embedding")),
            ("failing", queue.get("failing")),
            ("cycles", queue.get("cycles")),
            ("back-off levels", queue.get("levels")),
            ("links", links.get("total")),
            ("pinned links", links.get("pinned")),
            ("links by class", links.get("classes")),
        ],
        title="dream",
    )


def dream_stats(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(with_query("/api/dream/stats", scope_params(args)))
    app.out.emit(payload, _render_dream_stats)
    return 0


def _render_links(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (
            x.get("id"),
            x.get("link_class"),
            f"{x.get('confidence', 0):.2f}",
            _end(x.get("source")),
            _end(x.get("target")),
            x.get("scope"),
        )
        for x in payload.get("links", [])
    ]
    table(console, ["link", "class", "conf", "source", "target", "scope"], rows)
    if not rows:
        console.print("nothing to review")


def dream_review(args: argparse.Namespace, app: App) -> int:
    params = {**scope_params(args), "link_class": args.link_class, "limit": args.limit}
    payload = app.client().get(with_query("/api/dream/review", params))
    app.out.emit(payload, _render_links)
    return 0


def dream_resolve(args: argparse.Namespace, app: App) -> int:
    body = {"link": args.link, "action": args.action}
    payload = app.client().post("/api/dream/resolve", body)
    app.out.emit(payload, lambda c, p: c.print(f"link {p.get('id')}: {p.get('action')}"))
    return 0


def dream_revert(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/dream/revert", {"block": args.block})
    app.out.emit(
        payload,
        lambda c, p: c.print(
            f"links of {p['block']} back as before {p['replaced_at'][:16]}: "
            f"{p['links']} restored, {p['removed']} removed; Dream leaves it until "
            f"{p['rests_until'][:10]}"
        ),
    )
    return 0


def dream_mode(args: argparse.Namespace, app: App) -> int:
    """enable / disable / throttle: one switch for every tenant (server admins only)."""
    payload = app.client().post("/api/dream/mode", {"mode": MODES[args.dream_command]})
    app.out.emit(payload, lambda c, p: c.print(f"dream mode: [bold]{p.get('mode')}[/]"))
    return 0


# --- guard ----------------------------------------------------------------------------------


def _render_flags(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (
            f.get("id"),
            f.get("kind"),
            f"{f.get('similarity', 0):.3f}",
            _end(f.get("block")),
            _end(f.get("twin")),
            f.get("status"),
            f.get("scope"),
        )
        for f in payload.get("flags", [])
    ]
    table(console, ["flag", "kind", "similarity", "block", "resembles", "status", "scope"], rows)
    if not rows:
        console.print("no flags")


def guard_list(args: argparse.Namespace, app: App) -> int:
    params = {**scope_params(args), "status": args.status, "limit": args.limit}
    payload = app.client().get(with_query("/api/guard", params))
    app.out.emit(payload, _render_flags)
    return 0


def _render_guard_stats(console: Any, payload: dict[str, Any]) -> None:
    stats = payload.get("stats") or {}
    rows = [
        (kind, *(counts.get(s, 0) for s in ("open", "archived", "kept")))
        for kind, counts in sorted((stats.get("by_kind") or {}).items())
    ]
    table(console, ["kind", "open", "archived", "kept"], rows, title=f"open: {stats.get('open')}")


def guard_stats(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(with_query("/api/guard/stats", scope_params(args)))
    app.out.emit(payload, _render_guard_stats)
    return 0


def guard_resolve(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/guard/resolve", {"id": args.flag, "action": args.action})
    flag = payload.get("flag") or {}
    app.out.emit(payload, lambda c, p: c.print(f"flag {flag.get('id')}: {flag.get('status')}"))
    return 0


# --- digest, graph --------------------------------------------------------------------------


def _render_digest(console: Any, payload: dict[str, Any]) -> None:
    if payload.get("action") == "empty":
        console.print("nothing to digest: the scope has no blocks")
        return
    console.print(
        f"digest {payload.get('action')}: [bold]{payload.get('id')}[/] "
        f"({payload.get('blocks')} blocks, {payload.get('categories')} categories)"
    )


def digest(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/digest", compact({"scope": args.scope}))
    app.out.emit(payload, _render_digest)
    return 0


def _render_graph(console: Any, payload: dict[str, Any]) -> None:
    nodes = payload.get("nodes", [])
    table(
        console,
        ["hop", "id", "title", "category", "type", "scope", "links"],
        [
            (
                n.get("hop"),
                n.get("id"),
                n.get("title"),
                n.get("category"),
                n.get("type"),
                n.get("scope"),
                _degree(n.get("degree", 0)),
            )
            for n in nodes
        ],
        title="nodes",
    )
    # An edge is [source, target, link_class, confidence, pinned, origin, id] (node positions).
    table(
        console,
        ["source", "class", "target", "conf", "pinned", "origin"],
        [
            (
                nodes[e[0]].get("title"),
                e[2],
                nodes[e[1]].get("title"),
                f"{e[3]:.2f}",
                "yes" if e[4] else "",
                e[5],
            )
            for e in payload.get("edges", [])
        ],
        title="edges",
    )
    if payload.get("truncated"):
        console.print("(truncated: raise --limit or --edge-limit to see more)")


def _degree(value: int) -> str:
    """The server counts a block's links up to 201, meaning more than 200."""
    return "200+" if value > 200 else str(value)


def graph(args: argparse.Namespace, app: App) -> int:
    params = {
        "block": args.id,
        "hops": args.hops,
        "limit": args.limit,
        "min_confidence": args.min_confidence,
        "link_class": args.link_class,
        "per_node_cap": args.per_node_cap,
        "edge_limit": args.edge_limit,
        "category": args.category,
        "created_after": args.created_after,
        "created_before": args.created_before,
    }
    payload = app.client().get(with_query("/api/graph/ego", params))
    app.out.emit(payload, _render_graph)
    return 0
