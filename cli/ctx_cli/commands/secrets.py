"""`ctx secrets list|set|rotate|rm`: sealed secrets. Values go in from stdin, never out.

A value on the command line would land in the shell history and in `ps` for every local user
to read, so `set` and `rotate` refuse one; the value is never printed, not even in errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any
from urllib.parse import quote

from ctx_cli import UsageError
from ctx_cli.commands import App, compact
from ctx_cli.commands.dream import scope_params, with_query
from ctx_cli.http import Client
from ctx_cli.output import table

ARGUMENT_REFUSED = (
    "secret values are read from stdin only (a value on the command line ends up in the "
    'shell history): `printf %s "$VALUE" | ctx secrets {command} {name}`'
)


def _path(name: str, scope: str | None) -> str:
    return with_query(f"/api/secrets/{quote(name, safe='')}", {"scope": scope})


def _read_value(args: argparse.Namespace) -> str:
    """The value: a hidden prompt on a terminal, else stdin less one trailing newline."""
    if args.value is not None:
        raise UsageError(ARGUMENT_REFUSED.format(command=args.secrets_command, name=args.name))
    if sys.stdin is not None and sys.stdin.isatty():
        import getpass  # lazy: the CLI starts in every hook; load on use

        value = getpass.getpass(f"value of {args.name} (hidden): ")
    else:
        value = sys.stdin.read() if sys.stdin is not None else ""
        # `echo "$VALUE" |` adds one newline that is not part of the value; keep any other.
        value = value[:-2] if value.endswith("\r\n") else value.removesuffix("\n")
    if not value:
        raise UsageError(f"the value of {args.name} is empty (pipe it on stdin)")
    return value


def _render_list(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (
            s.get("name"),
            s.get("scope"),
            s.get("key_version"),
            s.get("rotated_at") or s.get("created_at"),
            s.get("rotated_by") or s.get("created_by"),
        )
        for s in payload.get("secrets", [])
    ]
    table(console, ["name", "scope", "key version", "last set", "by"], rows)
    if not rows:
        console.print("no secrets")


def secrets_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(with_query("/api/secrets", scope_params(args)))
    app.out.emit(payload, _render_list)
    return 0


def _put(args: argparse.Namespace, client: Client, value: str) -> dict[str, Any]:
    body = compact({"value": value, "scope": args.scope})
    return client.request("PUT", _path(args.name, None), body)


def _report(app: App, payload: dict[str, Any]) -> None:
    secret = payload.get("secret") or {}
    app.out.emit(
        payload,
        lambda c, p: c.print(
            f"{p.get('action')} secret {secret.get('name')} in {secret.get('scope')} "
            f"(key version {secret.get('key_version')})"
        ),
    )


def secrets_set(args: argparse.Namespace, app: App) -> int:
    value = _read_value(args)
    _report(app, _put(args, app.client(), value))
    return 0


def secrets_rotate(args: argparse.Namespace, app: App) -> int:
    """Like set, but only for a secret that exists: a typo must not create a new one."""
    value = _read_value(args)
    client = app.client()
    client.get(_path(args.name, args.scope))  # 404 (not_found) when there is none to rotate
    _report(app, _put(args, client, value))
    return 0


def secrets_rm(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", _path(args.name, args.scope))
    app.out.emit(
        payload, lambda c, p: c.print(f"deleted secret {p.get('name')} from {p.get('scope')}")
    )
    return 0
