"""`ctx blob put|get|ls|rm`: files attached to the memory (docs/cli.md, "Blobs").

`put` sends the file's raw bytes (the server sniffs the type and enforces its size limit);
`get` writes the bytes to a file or to stdout, never through the JSON output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctx_cli import UsageError
from ctx_cli.commands import App, compact, split_list, with_query
from ctx_cli.output import table


def _path(blob_id: str) -> str:
    return f"/api/blob/{quote(blob_id.strip(), safe='')}"


def _describe(blob: dict[str, Any]) -> str:
    return (
        f"{blob.get('id')} {blob.get('name')} ({blob.get('content_type')}, "
        f"{blob.get('size')} bytes) in {blob.get('scope')}"
    )


def blob_put(args: argparse.Namespace, app: App) -> int:
    source = Path(args.file)
    if not source.is_file():
        raise UsageError(f"not a file: {args.file}")
    params = {
        "name": args.name or source.name,
        "scope": args.scope,
        "tags": split_list(args.tag),
        "block": args.block,
    }
    payload = app.client().upload(with_query("/api/blob/store", params), source.read_bytes())
    blob = payload.get("blob") or {}
    app.out.emit(payload, lambda c, p: c.print(f"{p.get('action')} blob {_describe(blob)}"))
    return 0


def blob_get(args: argparse.Namespace, app: App) -> int:
    content = app.client().download(with_query(_path(args.id), {"download": "true"}))
    if args.output and args.output != "-":
        Path(args.output).write_bytes(content)
        app.out.emit(
            {"id": args.id, "file": args.output, "size": len(content)},
            lambda c, p: c.print(f"wrote {p['size']} bytes to {p['file']}"),
        )
        return 0
    sys.stdout.buffer.write(content)
    sys.stdout.buffer.flush()
    return 0


def _render_list(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (
            str(b.get("id")),
            b.get("name"),
            b.get("content_type"),
            b.get("size"),
            b.get("scope"),
            ", ".join(b.get("tags") or []),
        )
        for b in payload.get("blobs", [])
    ]
    table(console, ["id", "name", "type", "bytes", "scope", "tags"], rows)
    if not rows:
        console.print("no blobs")


def blob_ls(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {
            "query": " ".join(args.query) or None,
            "scopes": split_list(args.scope),
            "tags": split_list(args.tag),
            "content_type": args.type,
            "limit": args.limit,
        }
    )
    payload = app.client().post("/api/blob/search", body)
    app.out.emit(payload, _render_list)
    return 0


def blob_rm(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post("/api/blob/manage", {"action": "delete", "id": args.id})
    app.out.emit(payload, lambda c, p: c.print(f"deleted blob {p.get('id')}"))
    return 0
