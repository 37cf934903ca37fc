"""`ctx index add|search|list|rm`: documents cut into searchable chunks on the server
(docs/index.md), from the shell. What the stdio bridge's `index`, `fetch_and_index` and
`index_search` tools do, through the same sandbox reader and fetcher: a local file is refused
when a Claude Code Read rule denies it, a URL is fetched size- and time-bounded and refused
when it names a private address (unless --allow-private)."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctx_cli import CliError
from ctx_cli.commands import App, compact, local_sandbox, with_query
from ctx_cli.output import progress, table

# A folder's files that are indexed, and how each is cut (the server guesses only without one).
KINDS = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".html": "html"}
KINDS |= {".htm": "html", ".txt": "text", ".text": "text", ".log": "text", ".rst": "text"}


def _is_url(target: str) -> bool:
    return target.lower().startswith(("http://", "https://"))


def index_add(args: argparse.Namespace, app: App) -> int:
    from ctx_cli.sandbox.core import ToolError, read_document

    sandbox = local_sandbox(app, allow_private=args.allow_private)
    try:
        if Path(args.target).expanduser().is_dir():
            return _index_folder(args, app, sandbox)
        if _is_url(args.target):
            fetched = sandbox.fetch_and_index(args.target, source=args.source, scope=args.scope)
            payload = {"action": fetched["action"], "source": fetched["source"], "url": args.target}
        else:
            content = read_document(sandbox, args.target)
            body = {"content": content, "source": (args.source or args.target)[-200:]}
            body = compact({**body, "scope": args.scope, "type": args.type})
            payload = app.client().post("/api/index", body)
    except ToolError as exc:
        raise CliError(exc.message, code=exc.code) from None
    finally:
        sandbox.close()

    def render(console: Any, data: dict[str, Any]) -> None:
        src = data["source"]
        console.print(
            f"{data['action']} {src['label']} in {src['scope']}: {src['chunks']} chunks "
            f"of {src['type']}, {src['bytes']:,} bytes"
        )
        if src.get("terms"):
            console.print("terms: " + ", ".join(src["terms"][:10]))

    app.out.emit(payload, render)
    return 0


def _files(folder: Path) -> list[Path]:
    """The documents under `folder` (KINDS), hidden folders and files left out, in order."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.suffix.lower() in KINDS
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
        and path.is_file()
    )


def _index_folder(args: argparse.Namespace, app: App, sandbox: Any) -> int:
    """Each document of the folder as its own source, labelled `<folder>/<relative path>` (or
    `<--source>/<relative path>`): again, only what changed is replaced. A file that cannot be
    indexed is reported with its reason and the others go on; exit 1 when any failed."""
    from ctx_cli.sandbox.core import read_document

    folder = Path(args.target).expanduser().resolve()
    files = _files(folder)
    if not files:
        raise CliError(f"no Markdown, JSON, text or HTML files in {folder}")
    client, prefix = app.client(), (args.source or folder.name).rstrip("/")
    actions: Counter[str] = Counter()
    failed: list[dict[str, str]] = []
    chunks = 0
    with progress(app.out, len(files), "indexing") as advance:
        for file in files:
            label = f"{prefix}/{file.relative_to(folder).as_posix()}"[-200:]
            try:
                content = read_document(sandbox, str(file))
                kind = args.type or KINDS[file.suffix.lower()]
                body = compact({"content": content, "source": label, "scope": args.scope})
                answer = client.post("/api/index", {**body, "type": kind})
            except CliError as exc:  # ToolError (denied, too large) or the server's refusal
                failed.append({"path": str(file), "error": exc.message})
            else:
                actions[answer["action"]] += 1
                chunks += int(answer["source"]["chunks"])
            advance(1)
    payload = {"folder": str(folder), "files": len(files), **actions, "chunks": chunks}
    payload["failed"] = failed

    def render(console: Any, data: dict[str, Any]) -> None:
        done = ", ".join(
            f"{actions[a]} {a}" for a in ("created", "replaced", "unchanged") if a in actions
        )
        console.print(
            f"{data['folder']}: {data['files']} files ({done or 'none indexed'}), {chunks} chunks"
        )
        for item in failed:
            console.print(f"failed {item['path']}: {item['error']}", markup=False)

    app.out.emit(payload, render)
    if failed:
        raise CliError(f"{len(failed)} of {len(files)} files not indexed")
    return 0


def index_search(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {"queries": args.query, "source": args.source, "scope": args.scope, "limit": args.limit}
    )
    payload = app.client().post("/api/index/search", body)

    def render(console: Any, data: dict[str, Any]) -> None:
        for result in data.get("results", []):
            fixes = ", ".join(f"{a} → {b}" for a, b in (result.get("corrections") or {}).items())
            how = (result.get("rung") or "nothing found") + (f" ({fixes})" if fixes else "")
            console.print(f"{result['query']}: {how}", markup=False)
            for hit in result.get("hits", []):
                console.print(f"\n[{hit['source']} > {hit['title']}]", markup=False)
                console.print(hit["snippet"], markup=False, highlight=False)
            console.print()
        if data.get("truncated"):
            console.print("(answer cut at the server's cap: ask narrower queries)")

    app.out.emit(payload, render)
    return 0


def index_list(args: argparse.Namespace, app: App) -> int:
    payload = app.client().get(with_query("/api/index/sources", {"scopes": args.scope}))

    def render(console: Any, data: dict[str, Any]) -> None:
        rows = [
            (
                s["label"],
                s["scope"],
                s["type"],
                f"{s['bytes']:,}",
                s["chunks"],
                s["updated_at"][:19],
            )
            for s in data.get("sources", [])
        ]
        table(console, ["source", "scope", "type", "bytes", "chunks", "updated"], rows)
        if not rows:
            console.print("no indexed sources")

    app.out.emit(payload, render)
    return 0


def index_rm(args: argparse.Namespace, app: App) -> int:
    path = with_query(f"/api/index/sources/{quote(args.label, safe='')}", {"scope": args.scope})
    payload = app.client().request("DELETE", path)
    app.out.emit(
        payload,
        lambda c, p: c.print(f"deleted {p['label']} in {p['scope']} ({p['blocks']} chunks)"),
    )
    return 0
