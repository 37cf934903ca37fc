"""`ctx ingest FOLDER`: a shell over ctx_cli.ingest (parse, plan, upload, one summary line)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ctx_cli import UsageError
from ctx_cli import ingest as core
from ctx_cli.commands import App
from ctx_cli.output import Output, progress, table

DRY_RUN_ROWS = 200  # a terminal table of a whole vault helps nobody; --json shows everything


def _warn_skipped(out: Output, plan: core.Plan) -> None:
    for path, reason in plan.skipped:
        out.warn(f"skipped {path}: {reason}")


def _target(app: App, scope: str | None) -> str:
    """The state's key: the server and the scope written, the key's home scope named by the
    server. Scope names carry their tenant (`acme:main`), so two keys of two tenants ingesting
    one vault never share what was sent. A dry run without a key cannot ask: everything is new.
    """
    if scope is None and app.config.key:
        scope = str(app.client().get("/api/whoami")["home_scope"])
    return core.target_name(app.config.base_url, scope)


def _dry_run(app: App, root: Path, plan: core.Plan, scope: str | None, keep_deleted: bool) -> int:
    target = _target(app, scope)
    pending = core.pending_items(root, plan, target)
    counts = {s: sum(1 for st, _ in pending if st == s) for s in ("new", "changed")}
    unchanged = len(plan.items) - len(pending)
    gone = 0 if keep_deleted else len(core.gone_keys(root, plan, target))
    line = (
        f"dry run: {plan.notes} notes → {len(plan.items)} blocks: {counts['new']} new, "
        f"{counts['changed']} changed, {unchanged} unchanged, {len(plan.skipped)} skipped, "
        f"{gone} to archive (notes deleted from the folder); nothing sent"
    )
    if app.out.as_json:
        blocks = [{"status": st, **item.block} for st, item in pending]
        summary = {
            "notes": plan.notes,
            "blocks": len(plan.items),
            **counts,
            "unchanged": unchanged,
            "to_archive": gone,
        }
        app.out.json({"dry_run": True, "target": target, "would_send": blocks, "summary": summary})
        return 0
    rows = [_row(st, item) for st, item in pending[:DRY_RUN_ROWS]]
    table(app.out.console, ["status", "category", "title", "bytes", "tags"], rows)
    if len(pending) > DRY_RUN_ROWS:
        app.out.text(f"… and {len(pending) - DRY_RUN_ROWS} more (use --json to see all)")
    app.out.text(line)
    return 0


def _row(status: str, item: core.Item) -> tuple[Any, ...]:
    block = item.block
    size = len(block["content"].encode())
    return status, block["category"], block["title"], size, ", ".join(block["tags"])


def _upload(app: App, root: Path, plan: core.Plan, args: argparse.Namespace) -> core.Summary:
    client = app.client()
    target = _target(app, args.scope)
    total = len(core.pending_items(root, plan, target))
    with progress(app.out, total, "uploading") as advance:
        return core.run_upload(
            root,
            plan,
            target,
            client=client,
            scope=args.scope,
            batch=args.batch,
            progress=advance,
            keep_deleted=args.keep_deleted,
        )


def ingest(args: argparse.Namespace, app: App) -> int:
    root = Path(args.folder).expanduser()
    if not root.is_dir():
        raise UsageError(f"not a folder: {args.folder}")
    plan = core.collect(root, args.category)
    _warn_skipped(app.out, plan)
    if args.dry_run:
        return _dry_run(app, root, plan, args.scope, args.keep_deleted)
    summary = _upload(app, root, plan, args)
    if app.out.as_json:
        app.out.json(asdict(summary))
    else:
        s = summary
        line = (
            f"{s.notes} notes → {s.blocks} blocks: {s.created} created, {s.updated} updated, "
            f"{s.unchanged} unchanged, {s.skipped} skipped"
        )
        if s.archived or s.kept:
            line += f"; deleted from the folder: {s.archived} archived, {s.kept} kept"
        app.out.text(line)
    return 0
