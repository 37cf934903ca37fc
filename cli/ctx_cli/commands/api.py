"""`ctx api METHOD PATH [json]`: a raw call with the configured URL and key."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ctx_cli import UsageError
from ctx_cli.commands import App, stdin_text
from ctx_cli.http import error_from
from ctx_cli.output import dumps

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _body(args: argparse.Namespace) -> Any:
    text = args.body if args.body is not None else stdin_text(required=False, what="body")
    if text is None or not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the request body is not valid JSON: {exc}") from None


def api(args: argparse.Namespace, app: App) -> int:
    if not args.path.startswith("/"):
        raise UsageError(f"the path must start with '/', got {args.path!r}")
    body = _body(args) if args.method != "GET" or args.body is not None else None
    # A raw call may not be idempotent (POST /api/admin/scopes): never sent twice.
    resp = app.client().send(args.method, args.path, body, retry=args.method == "GET")
    if resp.status >= 400:
        raise error_from(resp)
    if app.out.as_json:
        app.out.json(resp.data)
    else:
        from rich.json import JSON  # lazy: the CLI starts in every hook; load on use

        app.out.console.print(JSON(dumps(resp.data)))
    return 0
