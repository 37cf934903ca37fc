"""`ctx settings list|get|set|unset`: the settings registry (docs/settings.md), for admins.

A value is read as JSON when it parses (`0.5`, `true`, `["graph","rerank"]`) and as the
environment's text form otherwise (`graph,rerank`); the server parses and validates it. A
credential knob takes `--secret NAME`: the name of a sealed secret, never its value.
"""

from __future__ import annotations

import argparse
import json
from typing import Any
from urllib.parse import quote

from ctx_cli import UsageError
from ctx_cli.commands import App, compact
from ctx_cli.commands.dream import with_query
from ctx_cli.output import fields, table


def _path(key: str, tenant: str | None) -> str:
    return with_query(f"/api/settings/{quote(key, safe='')}", {"tenant": tenant})


def _flags(s: dict[str, Any]) -> str:
    return ",".join(f for f, on in (("live", s.get("live")), ("tenant", s.get("tenant"))) if on)


def _shown(s: dict[str, Any]) -> Any:
    return f"secret:{s['secret_ref']}" if s.get("secret_ref") else s.get("value")


def _render_list(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (s.get("name"), _shown(s), s.get("source"), s.get("default"), _flags(s))
        for s in payload.get("settings", [])
    ]
    table(console, ["name", "value", "source", "default", "changeable"], rows)


def _render_one(console: Any, s: dict[str, Any]) -> None:
    fields(
        console,
        [
            ("value", _shown(s)),
            ("source", s.get("source")),
            ("default", s.get("default")),
            ("type", s.get("type")),
            ("changeable", _flags(s) or "restart (environment only)"),
            ("about", s.get("help")),
        ],
        title=str(s.get("name")),
    )


def settings_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(with_query("/api/settings", {"tenant": args.tenant}))
    app.out.emit(payload, _render_list)
    return 0


def settings_get(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(_path(args.key, args.tenant))
    app.out.emit(payload, lambda c, p: _render_one(c, p.get("setting") or {}))
    return 0


def _value(args: argparse.Namespace) -> Any:
    if (args.value is None) == (args.secret is None):
        raise UsageError("give a VALUE, or --secret NAME for a credential (not both)")
    if args.secret is not None:
        return compact({"secret": args.secret, "scope": args.scope})
    try:
        return json.loads(args.value)
    except ValueError:
        return args.value  # the environment's text form; the server parses it


def settings_set(args: argparse.Namespace, app: App) -> int:
    body = compact({"value": _value(args), "tenant": args.tenant})
    payload = app.client().request("PUT", f"/api/settings/{quote(args.key, safe='')}", body)
    app.out.emit(payload, lambda c, p: _render_one(c, (p.get("settings") or [{}])[0]))
    return 0


def settings_unset(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", _path(args.key, args.tenant))
    app.out.emit(payload, lambda c, p: _render_one(c, p.get("setting") or {}))
    return 0
