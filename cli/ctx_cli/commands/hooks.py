"""`ctx brief`, `ctx persist`, `ctx statusline`, `ctx hook record`: the Claude Code hook
commands.

Hook modes never fail an agent: errors go to stderr and the exit code stays 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ctx_cli import CliError
from ctx_cli import hooks as core
from ctx_cli.commands import App, stdin_text, with_query
from ctx_cli.config import ConfigError
from ctx_cli.http import ApiError, Unreachable
from ctx_cli.output import table

HOOK_TIMEOUT = 5.0  # a session start waits for the briefing; a dead server must not stall it
RECORD_TIMEOUT = 3.0  # `ctx hook record` runs after every tool call: never hold the agent long
# PreCompact has the server build the snapshot and SessionEnd has it write the open page of
# events: on a server that just started that took over 3 s (the events were kept, the local
# copy of the snapshot was not). They run once a compaction or session, with 10 s in the
# documented hook settings.
ONCE_TIMEOUT = 8.0
STATUS_TIMEOUT = 0.15  # per request: Claude Code refreshes the status line every ~300 ms


def _hook_safe(args: argparse.Namespace, app: App, exc: CliError) -> int:
    """In hook mode, report on stderr and succeed; otherwise let main report and fail."""
    if not args.hook:
        raise exc
    app.out.error(f"ctx {args.command}: {exc}")
    return 0


# --- brief --------------------------------------------------------------------------------


def brief(args: argparse.Namespace, app: App) -> int:
    try:
        return _brief(args, app)
    except CliError as exc:
        return _hook_safe(args, app, exc)


def _brief(args: argparse.Namespace, app: App) -> int:
    hook = core.read_hook_input() if args.hook else {}
    project = core.project_for(args.project, hook)
    client = app.client(timeout=HOOK_TIMEOUT if args.hook else None)
    if args.agent or args.max_tokens:
        return _context(args, app, client, hook, project)
    results, tagged = core.brief_results(client, project, args.limit)
    markdown = core.brief_markdown(project, results, tagged)
    if args.preferences:
        from ctx_cli.commands.profiles import preferences_for_hook  # lazy: one more command

        prompt = preferences_for_hook(client)
        markdown = f"{prompt}\n{markdown}" if prompt else markdown
    if args.hook:
        event = str(hook.get("hook_event_name") or "SessionStart")
        sys.stdout.write(json.dumps(core.hook_output(event, markdown)) + "\n")
    elif app.out.json_explicit:
        app.out.json(
            {"project": project, "tagged": tagged, "markdown": markdown, "results": results}
        )
    elif app.out.as_json:  # piped: the Markdown itself, e.g. `ctx brief > BRIEF.md`
        sys.stdout.write(markdown)
    else:
        from rich.markdown import Markdown  # lazy: the CLI starts in every hook; load on use

        app.out.console.print(Markdown(markdown))
    return 0


def _context(
    args: argparse.Namespace, app: App, client: Any, hook: dict[str, Any], project: str
) -> int:
    """`ctx brief --agent code`: the server's token-budgeted context (GET /api/context)."""
    params = {"agent": args.agent, "project": project, "max_tokens": args.max_tokens}
    payload = client.get(with_query("/api/context", params))
    text = str(payload.get("text") or "")
    if args.hook:
        event = str(hook.get("hook_event_name") or "SessionStart")
        sys.stdout.write(json.dumps(core.hook_output(event, text)) + "\n")
    elif app.out.json_explicit:
        app.out.json(payload)
    else:  # plain text on a terminal too: it is what the agent's prompt will hold
        sys.stdout.write(text + "\n" if text else "")
    return 0


# --- persist ------------------------------------------------------------------------------


def persist(args: argparse.Namespace, app: App) -> int:
    try:
        return _persist(args, app)
    except CliError as exc:
        return _hook_safe(args, app, exc)


def _source(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    if args.hook:
        hook = core.read_hook_input()
        return hook, core.hook_text(hook)
    return {}, stdin_text(required=True, what="text with [PERSIST:category:title] markers") or ""


def _persist(args: argparse.Namespace, app: App) -> int:
    hook, text = _source(args)
    project = core.project_for(args.project, hook)
    found = core.parse_markers(text)
    stored = core.store_markers(app.client(), found, project, args.scope) if found else []
    lines = [f"ctx: {s['action']} {s['category']}/{s['title']} ({s['id']})" for s in stored]
    if args.hook:  # plain text: Claude Code reads JSON on a hook's stdout as decisions
        app.out.text("\n".join(lines) if lines else "ctx: no [PERSIST:…] sections to store")
    elif app.out.as_json:
        app.out.json({"project": project, "stored": stored})
    elif stored:
        rows = [(s["action"], s["category"], s["title"], s["id"]) for s in stored]
        table(app.out.console, ["action", "category", "title", "id"], rows)
    else:
        app.out.text("no [PERSIST:category:title] sections found")
    return 0


# --- hook record ----------------------------------------------------------------------------


def record(args: argparse.Namespace, app: App) -> int:
    """Record the hook's event in the session's log; at SessionStart after a compaction, print
    the resume snapshot as hook JSON. Always exits 0: failures are reported on stderr."""
    try:
        hook = core.read_hook_input()
    except CliError as exc:
        return _record_failed(app, exc)
    try:
        return _record(args, app, hook)
    except CliError as exc:
        if _resuming(hook):  # the server is away: inject the copy PreCompact kept, if any
            _inject(_local_copy(app, hook))
        return _record_failed(app, exc)


def _record_failed(app: App, exc: CliError) -> int:
    app.out.error(f"ctx hook record: {exc}")
    return 0


def _resuming(hook: dict[str, Any]) -> bool:
    return hook.get("hook_event_name") == "SessionStart" and hook.get("source") == "compact"


def _record(args: argparse.Namespace, app: App, hook: dict[str, Any]) -> int:
    from ctx_cli import hook_events  # lazy: only this command needs it

    event = hook_events.event_for(hook)
    session_id = str(hook.get("session_id") or "")
    if event is None or not session_id:
        return 0
    body: dict[str, Any] = {"tool": hook_events.TOOL, "external_id": session_id, "events": [event]}
    if isinstance(hook.get("cwd"), str) and hook["cwd"]:
        body["project_root"] = hook["cwd"]
    if args.scope:
        body["scope"] = args.scope
    snapshot = hook_events.wants_snapshot(hook)
    if snapshot:
        body.update(snapshot=True, max_bytes=args.max_bytes)
    once = snapshot or hook.get("hook_event_name") == "SessionEnd"
    timeout = ONCE_TIMEOUT if once else RECORD_TIMEOUT
    answer = app.client(timeout=timeout).post("/api/sessions/events", body)
    markdown = str((answer.get("snapshot") or {}).get("markdown") or "")
    if hook.get("hook_event_name") == "PreCompact" and markdown:
        import time  # lazy: only PreCompact needs it

        path = hook_events.snapshot_path(session_id, app.environ)
        try:
            hook_events.save_snapshot(path, markdown, time.time())
        except OSError as exc:  # the server has it; the local copy is only a fallback
            app.out.warn(f"ctx hook record: cannot keep the snapshot in {path}: {exc.strerror}")
        sys.stderr.write(f"ctx: resume snapshot of {len(markdown.encode())} bytes built\n")
    if _resuming(hook):
        _inject(markdown)
    return 0


def _local_copy(app: App, hook: dict[str, Any]) -> str:
    from ctx_cli import hook_events  # lazy: only this command needs it

    session_id = str(hook.get("session_id") or "")
    if not session_id:
        return ""
    return hook_events.load_snapshot(hook_events.snapshot_path(session_id, app.environ))


def _inject(markdown: str) -> None:
    """What SessionStart prints to add context (nothing when there is none)."""
    if markdown:
        sys.stdout.write(json.dumps(core.hook_output("SessionStart", markdown)) + "\n")


# --- statusline ---------------------------------------------------------------------------


def statusline(args: argparse.Namespace, app: App) -> int:
    if sys.stdin is not None and not sys.stdin.isatty():
        sys.stdin.read()  # Claude Code's session JSON: nothing in it is needed yet
    app.out.text(_status(app))
    return 0


def _status(app: App) -> str:
    try:
        if not app.config.key:
            return "ctx ○ no key (run ctx init)"
        return core.status_line(app.client(timeout=STATUS_TIMEOUT))
    except Unreachable:
        return "ctx ○ offline"
    except ApiError as exc:
        return f"ctx ○ {exc.code or exc.status}"
    except ConfigError:
        return "ctx ○ config error"
    except CliError:
        return "ctx ○ error"
