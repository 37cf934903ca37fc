"""`ctx signal`, `ctx pull` and `ctx profiles …`: preference signals in, the prompt out, and the
profiles folder both ways (docs/profiles.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctx_cli import CliError, UsageError
from ctx_cli import feedback as chatgpt
from ctx_cli import hooks as core
from ctx_cli import profiles_folder as folder
from ctx_cli.commands import App, compact, split_list, stdin_text
from ctx_cli.commands.dream import with_query
from ctx_cli.http import ApiError, Client
from ctx_cli.output import fields, table

HOOK_TIMEOUT = 5.0  # a session start waits for the prompt; a dead server must not stall it
BATCH = 500  # signals per request (the server's bound)


def _path(slug: str, tail: str = "") -> str:
    return f"/api/profiles/{quote(slug, safe='')}{tail}"


# --- ctx signal ---------------------------------------------------------------------------


def _signal_type(args: argparse.Namespace, note: str, tags: list[str]) -> str:
    if args.type:
        return str(args.type)
    if note:
        return "note"
    if tags:
        return "tag"
    raise UsageError("say something: a note, --tag, or --type like/dislike")


def _context(args: argparse.Namespace) -> str | None:
    if args.context_file:
        try:
            return Path(args.context_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"cannot read {args.context_file}: {exc}") from None
    if args.context == "-":
        return stdin_text(required=True, what="the answer excerpt (--context -)")
    return args.context


def signal(args: argparse.Namespace, app: App) -> int:
    note = args.note or ""
    tags = split_list(args.tag)
    body = compact(
        {
            "type": _signal_type(args, note, tags),
            "note": note,
            "tags": tags,
            "context": _context(args),
            "profile": args.profile,
            "source": args.source or "ctx-cli",
            "session": args.session,
        }
    )
    payload = app.client().post("/api/signals", body)
    app.out.emit(
        payload,
        lambda c, p: c.print(
            f"{'recorded' if p.get('action') == 'created' else 'already recorded'} "
            f"{p.get('type')} signal for profile {p.get('profile')} "
            f"(version {p.get('version')}, {p.get('pending')} waiting to be applied)"
        ),
    )
    return 0


# --- ctx pull -----------------------------------------------------------------------------


def _active(client: Client, profile: str | None) -> dict[str, Any]:
    return client.get(with_query("/api/preferences/active", {"profile": profile}))


def pull(args: argparse.Namespace, app: App) -> int:
    """The active prompt on stdout (plain text, for hooks and pipes)."""
    try:
        hook = core.read_hook_input() if args.hook else {}
        payload = _active(app.client(timeout=HOOK_TIMEOUT if args.hook else None), args.profile)
    except CliError as exc:
        if not args.hook:
            raise
        app.out.error(f"ctx pull: {exc}")  # a hook never stands in the agent's way
        return 0
    if args.hook:
        event = str(hook.get("hook_event_name") or "SessionStart")
        sys.stdout.write(json.dumps(core.hook_output(event, payload["prompt"])) + "\n")
    elif app.out.json_explicit:
        app.out.json(payload)
    else:
        sys.stdout.write(payload["prompt"])
    return 0


def preferences_for_hook(client: Client) -> str:
    """The active prompt, or "" when the tenant has none yet (for `ctx brief --preferences`)."""
    try:
        return str(_active(client, None).get("prompt") or "")
    except ApiError as exc:
        if exc.status == 404:
            return ""
        raise


# --- ctx profiles list|show|activate|create|delete|history|diff ---------------------------


def _render_list(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (
            ("* " if p.get("active") else "") + str(p.get("slug")),
            p.get("name"),
            p.get("version"),
            str(p.get("updated_at") or "")[:19],
            p.get("pending"),
            p.get("template"),
            p.get("scope"),
        )
        for p in payload.get("profiles", [])
    ]
    table(console, ["slug", "name", "version", "updated", "waiting", "template", "scope"], rows)
    if not rows:
        console.print("no profiles yet: `ctx signal` creates a default one")


def profiles_list(args: argparse.Namespace, app: App) -> int:
    app.out.emit(app.client().get("/api/profiles"), _render_list)
    return 0


def _render_profile(console: Any, payload: dict[str, Any]) -> None:
    p = payload.get("profile", {})
    fields(
        console,
        [
            ("slug", p.get("slug")),
            ("name", p.get("name")),
            ("context", p.get("context")),
            ("version", p.get("version")),
            ("updated", p.get("updated_at")),
            ("active", p.get("active")),
            ("waiting", p.get("pending")),
            ("metrics", p.get("metrics")),
            ("published", p.get("published")),
        ],
        title=f"profile {p.get('slug')}",
    )
    console.print(p.get("prompt", ""), markup=False)


def profiles_show(args: argparse.Namespace, app: App) -> int:
    app.out.emit(app.client().get(_path(args.slug)), _render_profile)
    return 0


def profiles_activate(args: argparse.Namespace, app: App) -> int:
    payload = app.client().post(_path(args.slug, "/activate"), {})
    app.out.emit(payload, lambda c, p: c.print(f"active profile: {p.get('active')}"))
    return 0


def profiles_create(args: argparse.Namespace, app: App) -> int:
    body = compact(
        {
            "slug": args.slug,
            "name": args.name or args.slug,
            "template": args.template,
            "context": args.context,
            "interpretation_hint": args.hint,
            "scope": args.scope,
        }
    )
    app.out.emit(app.client().post("/api/profiles", body), _render_profile)
    return 0


def profiles_delete(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", _path(args.slug))
    app.out.emit(payload, lambda c, p: c.print(f"deleted profile {p.get('slug')}"))
    return 0


def _render_history(console: Any, payload: dict[str, Any]) -> None:
    rows = [
        (v.get("version"), str(v.get("at"))[:19], len(v.get("signal_ids", [])), v.get("summary"))
        for v in payload.get("versions", [])
    ]
    table(console, ["version", "at", "signals", "what changed"], rows)


def profiles_history(args: argparse.Namespace, app: App) -> int:
    path = with_query(_path(args.slug, "/versions"), {"limit": args.limit})
    app.out.emit(app.client().get(path), _render_history)
    return 0


def profiles_diff(args: argparse.Namespace, app: App) -> int:
    path = with_query(_path(args.slug, "/diff"), {"from": args.from_version, "to": args.to})
    payload = app.client().get(path)
    if app.out.as_json:
        app.out.json(payload)
        return 0
    for step in payload.get("changes", []):
        app.out.text(f"# v{step.get('version')}: {step.get('summary')}")
    sys.stdout.write(payload.get("diff") or "(the prompts are the same)\n")
    return 0


def profiles_publish(args: argparse.Namespace, app: App) -> int:
    client = app.client()
    payload = client.post(_path(args.slug, "/publish"), {})
    url = client.base_url.rstrip("/") + str(payload.get("url"))

    def render(console: Any, p: dict[str, Any]) -> None:
        console.print(f"{p.get('action')} {args.slug} as {p.get('hash')}: {url}")
        for f in p.get("findings", []):
            where, level = f.get("path"), f.get("level")
            console.print(f"note: {where} holds {level} data ({f.get('detectors')})")

    app.out.emit({**payload, "url": url}, render)
    return 0


def profiles_unpublish(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", _path(args.slug, "/publish"))
    app.out.emit(
        payload, lambda c, p: c.print(f"unpublished: {', '.join(p.get('hashes', [])) or '-'}")
    )
    return 0


# --- the folder: export, sync, import -----------------------------------------------------


def _export(client: Client, target: Path) -> dict[str, Any]:
    payload = client.get("/api/profiles/export")
    try:
        written = folder.write_folder(target, payload.get("files", {}), payload.get("profiles", []))
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot write {target}: {exc}") from None
    return {
        "folder": str(target),
        "active": payload.get("active"),
        "written": written,
        "signals": payload.get("signals"),
        "pending": payload.get("pending"),
    }


def _report_export(console: Any, p: dict[str, Any]) -> None:
    console.print(
        f"wrote {len(p.get('written', []))} files to {p.get('folder')} "
        f"(active {p.get('active') or '-'}, {p.get('signals')} signals)"
    )


def profiles_export(args: argparse.Namespace, app: App) -> int:
    app.out.emit(_export(app.client(), Path(args.folder)), _report_export)
    return 0


def _send_inbox(client: Client) -> folder.Send:
    def send(files: list[dict[str, str]]) -> list[dict[str, Any]]:
        return list(client.post("/api/signals/inbox", {"files": files}).get("results", []))

    return send


def _wait_applied(client: Client, seconds: float) -> int:
    """Wait until no signal is waiting (or `seconds` passed); how many still wait."""
    deadline = time.monotonic() + seconds
    while True:
        waiting = sum(int(p.get("pending", 0)) for p in client.get("/api/profiles")["profiles"])
        if waiting == 0 or time.monotonic() >= deadline:
            return waiting
        time.sleep(0.2)


def _sync_once(client: Client, target: Path, wait: float) -> dict[str, Any]:
    outcomes = folder.drain(target, _send_inbox(client))
    stored = [o for o in outcomes if o.action == "stored"]
    waiting = _wait_applied(client, wait) if stored else 0
    report = _export(client, target)
    report["inbox"] = {
        "stored": len(stored),
        "duplicate": sum(1 for o in outcomes if o.action == "duplicate"),
        "rejected": [{"name": o.name, "reason": o.reason} for o in outcomes if o.reason],
    }
    report["still_waiting"] = waiting
    return report


def _report_sync(console: Any, p: dict[str, Any]) -> None:
    inbox = p["inbox"]
    console.print(
        f"inbox: {inbox['stored']} stored, {inbox['duplicate']} already stored, "
        f"{len(inbox['rejected'])} rejected"
    )
    for r in inbox["rejected"]:
        console.print(f"  rejected {r['name']}: {r['reason']}", markup=False)
    _report_export(console, p)
    if p.get("still_waiting"):
        console.print(f"{p['still_waiting']} signal(s) not applied yet; the next sync shows them")


def profiles_sync(args: argparse.Namespace, app: App) -> int:
    """Drain the inbox, wait for the new version, write the folder; `--every N` repeats."""
    client = app.client()
    target = Path(args.folder)
    while True:
        report = _sync_once(client, target, args.wait)
        app.out.emit(report, _report_sync)
        if not args.every:
            return 0
        time.sleep(args.every)


def profiles_import(args: argparse.Namespace, app: App) -> int:
    try:
        files = folder.read_folder(Path(args.folder))
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {args.folder}: {exc}") from None
    body = compact({"files": files, "scope": args.scope})
    payload = app.client().post("/api/profiles/import", body)
    app.out.emit(
        payload,
        lambda c, p: c.print(
            f"created {', '.join(p.get('created', [])) or 'nothing'}; "
            f"skipped (exist already) {', '.join(p.get('skipped', [])) or 'none'}; "
            f"{p.get('signals')} signals; active {p.get('active') or 'unchanged'}"
        ),
    )
    return 0


def profiles_import_feedback(args: argparse.Namespace, app: App) -> int:
    """ChatGPT's thumbs up/down from a data export, as signals."""
    source, convos = chatgpt.locate(Path(args.file))
    try:
        parsed = chatgpt.parse(chatgpt.read_entries(source))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    found = chatgpt.add_context(parsed.signals, convos)
    for s in parsed.signals:
        if args.profile:
            s["profile"] = args.profile
    report: dict[str, Any] = {"signals": len(parsed.signals), "with_context": found}
    report["skipped"] = parsed.skipped
    if not args.dry_run:
        client = app.client()
        created = 0
        for start in range(0, len(parsed.signals), BATCH):
            chunk = parsed.signals[start : start + BATCH]
            created += int(client.post("/api/signals/batch", {"signals": chunk})["created"])
        report["created"] = created
    app.out.emit(report, _report_feedback)
    return 0


def _report_feedback(console: Any, p: dict[str, Any]) -> None:
    done = f", {p['created']} new" if "created" in p else " (dry run: nothing sent)"
    console.print(
        f"{p['signals']} ratings read ({p['with_context']} with the rated answer){done}; "
        f"{len(p['skipped'])} skipped"
    )
