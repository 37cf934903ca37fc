"""`ctx sessions import|watch|list|show|search|delete`: conversation memory.

The import is a shell over ctx_cli.session_upload (find, read, batch, upload, wait, remember);
the other actions show what the server holds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctx_cli import CliError, UsageError
from ctx_cli import session_upload as up
from ctx_cli.commands import App, split_list
from ctx_cli.commands.dream import with_query
from ctx_cli.hooks import read_hook_input
from ctx_cli.http import Client, Unreachable
from ctx_cli.output import Output, fields, table
from ctx_cli.session_state import State
from ctx_cli.sessions import parsers

HOOK_JOB_TIMEOUT = 45.0  # Claude Code gives a hook 60 s


# --- import --------------------------------------------------------------------------------------


def _options(args: argparse.Namespace) -> up.Options:
    tools = [args.tool] if args.tool else list(parsers.PARSERS)
    try:
        since = up.since_date(args.since) if args.since else None
    except ValueError as exc:
        raise UsageError(f"--since: {exc}") from None
    return up.Options(
        tools=tools,
        path=Path(args.path) if args.path else None,
        since=since,
        dry_run=args.dry_run,
        full=args.full,
        restore_deleted=args.restore_deleted,
        scope=args.scope,
    )


def _state(client: Client, app: App) -> State:
    return State.load(client.base_url, up.tenant_of(client), app.environ)


@contextmanager
def _progress(out: Output, total: int) -> Iterator[up.Progress]:
    """A bar over the files on a terminal (stderr); nothing when piped."""
    console = out.err_console
    if not console.is_terminal or total == 0:
        yield lambda target, messages: None
        return
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("reading", total=total)
        sent = [0]

        def advance(target: up.Target, messages: int) -> None:
            sent[0] += messages
            bar.update(task, advance=1, description=f"{target.tool}: {sent[0]} new messages")

        yield advance


def _dry_client(app: App) -> tuple[Client | None, State | None]:
    """A dry run compares with the saved cursors when the server can say whose they are."""
    try:
        client = app.client()
        return client, _state(client, app)
    except (Unreachable, CliError) as exc:
        app.out.warn(f"{exc}; the dry run reads every file from the start")
        return None, None


def run_import(args: argparse.Namespace, app: App) -> up.Summary:
    options = _options(args)
    found, problems = up.targets(options, Path.home(), app.environ)
    if options.dry_run:
        client, state = _dry_client(app)
    else:
        client = app.client()
        state = _state(client, app)
    with _progress(app.out, len(found)) as advance:
        summary = up.run(client, state, options, found, advance)
    summary.skipped[:0] = problems
    return summary


def _line(name: str, counts: dict[str, Any]) -> str:
    def part(bucket: dict[str, int]) -> str:
        return ", ".join(f"{n} {k}" for k, n in sorted(bucket.items())) or "nothing new"

    files = f"{counts['files']} files ({counts['files_unchanged']} unchanged)"
    return (
        f"{name}: {files}; sessions: {part(counts['sessions'])}; "
        f"messages: {part(counts['messages'])}"
    )


# What `--path` can name, said when it held none of it (a typo, or the tools' parent folder).
_PATH_HINT = (
    "--path takes a home folder (holding .claude, .codex, .gemini, .copilot or Cursor's and "
    "VS Code's settings), one log file, or a ChatGPT / claude.ai export"
)


def _render_summary(out: Output, summary: dict[str, Any], path: str | None = None) -> None:
    if not summary["tools"]:
        out.text(
            f"no session logs found in {path}; {_PATH_HINT}" if path else "no session logs found"
        )
    for name, counts in summary["tools"].items():
        out.text(_line(name, counts))
    for item in summary["skipped"]:
        out.text(f"skipped {item['path']}: {item['reason']}")
    for drift in summary["drift"]:
        kinds = [*drift["unknown_types"], *drift["unknown_fields"], *drift["missing_fields"]]
        detail = f" ({', '.join(kinds[:5])})" if kinds else ""
        out.text(f"drift in {drift['path']}: {drift['total']} unknown or missing{detail}")
    for failure in summary["failed"]:
        out.text(f"failed: job {failure['job']}: {failure['error']}")
    if summary["dry_run"]:
        out.text("dry run: nothing was sent, no cursor was saved")


def sessions_import(args: argparse.Namespace, app: App) -> int:
    if args.hook:
        return _hook(args, app)
    summary = run_import(args, app).as_dict()
    if app.out.as_json:
        app.out.json(summary)
    else:
        _render_summary(app.out, summary, args.path)
    # A --path that does not exist or is no log nor export is the user's to fix: not a success.
    refused = bool(args.path) and not summary["tools"] and bool(summary["skipped"])
    return 1 if summary["failed"] or refused else 0


def _hook(args: argparse.Namespace, app: App) -> int:
    """SessionEnd / PreCompact: upload the hook's transcript (and its subagents) incrementally.
    Never stands in the agent's way: failures go to stderr, the exit code is 0."""
    try:
        hook = read_hook_input()
        path = hook.get("transcript_path")
        if not isinstance(path, str) or not path:
            raise CliError("the hook input has no transcript_path")
        transcript = Path(path).expanduser()
        client = app.client()
        state = _state(client, app)
        options = up.Options(tools=["claude-code"], scope=args.scope)
        options.job_timeout = HOOK_JOB_TIMEOUT
        summary = up.run(client, state, options, _hook_targets(transcript)).as_dict()
        counts = summary["tools"].get("claude-code", {}).get("messages", {})
        sys.stderr.write(f"ctx: {counts.get('new', 0)} new messages from {transcript.name}\n")
        for failure in summary["failed"]:
            sys.stderr.write(f"ctx: import failed: {failure['error']}\n")
    except CliError as exc:
        sys.stderr.write(f"ctx sessions import --hook: {exc}\n")
    return 0


def _hook_targets(transcript: Path) -> list[up.Target]:
    """The transcript and its subagents' (`<session>/subagents/*.jsonl`, newest builds)."""
    found = [up.Target("claude-code", transcript.resolve())]
    sub = transcript.with_suffix("") / "subagents"
    if sub.is_dir():
        found += [up.Target("claude-code", p.resolve()) for p in sorted(sub.glob("*.jsonl"))]
    return found


# --- watch ---------------------------------------------------------------------------------------


def sessions_watch(args: argparse.Namespace, app: App) -> int:
    """Poll the locations, upload what is new, forever (or --rounds times). The cursors are
    saved after every round, so a restarted watch goes on where the last one stopped."""
    args.dry_run, args.full, args.since = False, False, None
    rounds = 0
    while True:
        rounds += 1
        try:
            summary = run_import(args, app).as_dict()
            _watch_line(app.out, summary)
        except (Unreachable, CliError) as exc:
            app.out.warn(f"{exc}; trying again in {args.interval:g} s")
        if args.rounds and rounds >= args.rounds:
            return 0
        time.sleep(args.interval)


def _watch_line(out: Output, summary: dict[str, Any]) -> None:
    stamp = time.strftime("%H:%M:%S")
    new = {name: c["messages"].get("new", 0) for name, c in summary["tools"].items()}
    if out.as_json:  # one line per round (JSON lines), for a pipe that reads as it goes
        sys.stdout.write(json.dumps({"at": stamp, **summary}) + "\n")
    elif any(new.values()) or summary["failed"]:
        parts = ", ".join(f"{name} {n}" for name, n in new.items() if n)
        out.text(f"{stamp} new messages: {parts or 'none'}; failed jobs: {len(summary['failed'])}")
    sys.stdout.flush()


# --- list, show, search, delete ------------------------------------------------------------------


def _when(value: Any) -> str:
    return str(value or "")[:16].replace("T", " ")


def _session_rows(sessions: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            s.get("id"),
            s.get("tool"),
            _when(s.get("last_activity_at")),
            s.get("message_count"),
            os.path.basename(str(s.get("project") or "")),
            (s.get("title") or s.get("preview") or "")[:60],
        )
        for s in sessions
    ]


COLUMNS = ["id", "tool", "last active", "messages", "project", "title / last prompt"]


def sessions_list(args: argparse.Namespace, app: App) -> int:
    params = {
        "tool": args.tool,
        "project": args.project,
        "branch": args.branch,
        "since": args.since,
        "limit": args.limit,
        "offset": args.offset,
        "scopes": split_list(args.scope),
    }
    payload = app.client().get(with_query("/api/sessions", params))

    def render(console: Any, data: dict[str, Any]) -> None:
        table(console, COLUMNS, _session_rows(data.get("sessions", [])))
        console.print(f"{data.get('count')} of {data.get('total')} sessions")

    app.out.emit(payload, render)
    return 0


def sessions_show(args: argparse.Namespace, app: App) -> int:
    params = {"limit": args.limit, "offset": args.offset, "latest": "true" if args.latest else None}
    payload = app.client().get(with_query(f"/api/sessions/{quote(args.id, safe='')}", params))

    def render(console: Any, data: dict[str, Any]) -> None:
        s = data["session"]
        fields(
            console,
            [
                ("tool", s.get("tool")),
                ("session", s.get("external_id")),
                ("title", s.get("title")),
                ("project", s.get("project")),
                ("branch", s.get("branch")),
                ("last active", _when(s.get("last_activity_at"))),
                ("messages", s.get("message_count")),
            ],
            title=f"session {s.get('id')}",
        )
        from rich.text import Text

        for m in data.get("messages", []):
            calls = f" [tools: {'; '.join(m['tool_calls'])}]" if m.get("tool_calls") else ""
            console.print(Text(f"#{m['index']} {_when(m.get('timestamp'))} {m['role']}:"))
            console.print(Text(f"{m['text']}{calls}\n"))

    app.out.emit(payload, render)
    return 0


def sessions_search(args: argparse.Namespace, app: App) -> int:
    body: dict[str, Any] = {"query": args.query}
    for name in ("tool", "project", "limit"):
        if getattr(args, name) is not None:
            body[name] = getattr(args, name)
    if args.scope:
        body["scopes"] = split_list(args.scope)
    payload = app.client().post("/api/sessions/search", body)

    def render(console: Any, data: dict[str, Any]) -> None:
        from rich.text import Text

        if not data.get("sessions"):
            console.print("no conversation matched")
        for hit in data.get("sessions", []):
            s = hit["session"]
            head = f"session {s['id']} [{s['tool']}] {s.get('title') or s.get('preview', '')[:60]}"
            # The title reorders sessions (docs/conversations.md): say so, or the scores
            # printed would seem out of order.
            why = f", title match {hit['title_match']:.2f}" if hit.get("title_match") else ""
            console.print(Text(f"{head}  (score {hit['score']:.3f}{why})", style="bold"))
            for w in hit["windows"]:
                where = f"  messages {w['first_index']}-{w['last_index']}: "
                console.print(Text(where + w["preview"].replace("\n", " ")[:200]))

    app.out.emit(payload, render)
    return 0


def sessions_delete(args: argparse.Namespace, app: App) -> int:
    payload = app.client().request("DELETE", f"/api/sessions/{quote(args.id, safe='')}")
    if app.out.as_json:
        app.out.json(payload)
    else:
        app.out.text(
            f"deleted session {payload['id']}: {payload['messages']} messages, "
            f"{payload['windows']} windows; a later import skips it (--restore-deleted brings "
            "it back)"
        )
    return 0
