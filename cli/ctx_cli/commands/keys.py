"""`ctx keys create|list|revoke`: API keys of your tenant (tenant admins and up)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import quote

from ctx_cli.commands import App, compact, split_list
from ctx_cli.output import escape, table


def _tenant_query(args: argparse.Namespace) -> str:
    return f"?tenant={quote(args.tenant)}" if args.tenant else ""


def _render_created(console: Any, payload: dict[str, Any]) -> None:
    console.print(
        f"created key [bold]{escape(payload['name'])}[/] ({payload['prefix']}…) in "
        f"{escape(payload['tenant'])}, role {payload['role']}, "
        f"home {escape(payload['home_scope'])}, "
        f"reads up to {payload.get('max_sensitivity', 'personal')} in clear"
    )
    console.print("the key is shown once; store it now:")
    console.out(payload["key"], highlight=False)


def keys_create(args: argparse.Namespace, app: App) -> int:
    write = [] if args.read_only else split_list(args.write) or None
    body = compact(
        {
            "name": args.name,
            "role": args.role,
            "home_scope": args.home,
            "read_scopes": split_list(args.read),
            "is_admin": args.admin,
            "tenant": args.tenant or _tenant_of(args.home),
            "max_sensitivity": args.max_sensitivity,
        }
    )
    if write is not None:
        body["write_scopes"] = write  # [] is meaningful: a read-only key
    payload = app.client().post("/api/keys", body)
    app.out.emit(payload, _render_created)
    return 0


def _tenant_of(scope: str) -> str | None:
    """The tenant a scope name belongs to (`acme:team` -> acme); None for a bare name."""
    tenant, sep, _ = scope.partition(":")
    return tenant if sep and tenant else None


def _row(key: dict[str, Any]) -> list[Any]:
    return [
        f"{key['prefix']}…",
        key["name"],
        key["role"] + (" +server-admin" if key.get("is_admin") else ""),
        key["home_scope"],
        ", ".join(key.get("read_scopes") or []) or "—",
        ", ".join(key.get("write_scopes") or []) or "—",
        key.get("max_sensitivity") or "—",
        "active" if key.get("active") else "revoked",
        (key.get("last_used_at") or "never")[:19],
    ]


def keys_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get("/api/keys" + _tenant_query(args))
    columns = [
        *("prefix", "name", "role", "home", "reads", "writes"),
        *("in clear", "state", "last used"),
    ]
    rows = [_row(k) for k in payload.get("keys", [])]
    app.out.emit(payload, lambda c, p: table(c, columns, rows))
    return 0


def keys_revoke(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", f"/api/keys/{quote(args.prefix, safe='')}")
    app.out.emit(payload, lambda c, p: c.print(f"revoked {p['prefix']}…"))
    return 0
