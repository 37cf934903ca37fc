"""`ctx tenants [list|create|suspend|resume]`: the server's tenants (server admins)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import quote

from ctx_cli.commands import App, compact, split_list
from ctx_cli.output import escape, table


def _row(tenant: dict[str, Any]) -> list[Any]:
    return [
        tenant.get("name"),
        tenant.get("status"),
        tenant.get("scopes"),
        tenant.get("active_keys"),
        str(tenant.get("created_at") or "")[:10],
    ]


def tenants_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get("/api/admin/tenants")
    rows = [_row(t) for t in payload.get("tenants", [])]
    columns = ["tenant", "status", "scopes", "active keys", "created"]  # scopes: a count
    app.out.emit(payload, lambda c, p: table(c, columns, rows))
    return 0


def _render_created(console: Any, payload: dict[str, Any]) -> None:
    console.print(
        f"created tenant [bold]{escape(payload['tenant'])}[/] with scopes "
        f"{escape(', '.join(payload['scopes']))}"
    )
    console.print("its owner key is shown once; store it now:")
    console.out(payload["owner_key"], highlight=False)


def tenants_create(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {"name": args.name, "display_name": args.display_name, "scopes": split_list(args.scope)}
    )
    app.out.emit(app.client().post("/api/admin/tenants", body), _render_created)
    return 0


def tenants_status(args: argparse.Namespace, app: App) -> int:
    action = args.tenants_command  # suspend | resume
    path = f"/api/admin/tenants/{quote(args.name, safe='')}/{action}"
    payload = app.client().post(path, {})
    app.out.emit(payload, lambda c, p: c.print(f"{escape(p['tenant'])}: {p['status']}"))
    return 0
