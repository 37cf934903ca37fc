"""GitHub Copilot: Copilot Chat in VS Code (three storage generations) and Copilot CLI.

Chat: `…/Code/User/workspaceStorage/<id>/chatSessions/<sessionId>.json` (versions 1-3) or
`.jsonl` (a mutation log replayed to the same object), sessions of windows without a folder
under `globalStorage/`, and the oldest `interactive.sessions` row of a workspace
`state.vscdb`. User text is the request's message, the answer is its markdown parts with tool
invocations and edits as summaries; thinking and progress parts are skipped. The project is the
folder in `workspace.json` beside the workspace's storage. These files are rewritten whole, so
each change is compared with what was returned before.

CLI: `~/.copilot/session-state/<id>/events.jsonl`, typed events read incrementally: prompts,
answers with their tool requests, tool results (role `tool`, bounded); the project is
`session.start`'s `context.cwd`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions import vscdb
from ctx_cli.sessions.build import SessionBuild
from ctx_cli.sessions.files import FileProblem, first_records, head_text, load_json
from ctx_cli.sessions.jsonl import read_jsonl
from ctx_cli.sessions.model import Cursor, ReadResult
from ctx_cli.sessions.parsers.copilot_chat import replay, session_builds
from ctx_cli.sessions.parsers.copilot_cli import CopilotCliHandler
from ctx_cli.sessions.whole import Context, read_whole

TOOL = "copilot"
PRODUCTS = ("Code", "Code - Insiders", "VSCodium")
GLOBAL_FOLDERS = ("emptyWindowChatSessions", "transferredChatSessions", "savedChatSessions")
SESSIONS_KEY = "interactive.sessions"


def detect(path: Path) -> bool:
    if path.suffix == ".jsonl":
        records = first_records(path, 1)
        if not records:
            return False
        first = records[0]
        if first.get("kind") == 0 and isinstance(first.get("v"), dict):
            return "requests" in first["v"]
        return isinstance(first.get("type"), str) and "." in first["type"] and "data" in first
    if path.suffix == ".json":
        head = head_text(path)
        return '"requests"' in head and '"projectHash"' not in head
    return vscdb.is_sqlite(path) and _has_chat_row(path)


def _has_chat_row(path: Path) -> bool:
    try:
        conn = vscdb.connect(path)
    except FileProblem:
        return False
    try:
        names = vscdb.tables(conn)
        if "ItemTable" not in names or "cursorDiskKV" in names:
            return False
        row = conn.execute("SELECT 1 FROM ItemTable WHERE key = ?", (SESSIONS_KEY,)).fetchone()
        return row is not None
    except vscdb.sqlite3.Error:
        return False
    finally:
        conn.close()


def user_dirs(home: Path, platform: str, env: Mapping[str, str] | None, product: str) -> Path:
    """VS Code's (or a fork's) `User` directory on each platform."""
    env = env or {}
    if platform == "darwin":
        return home / "Library" / "Application Support" / product / "User"
    if platform == "win32":
        appdata = env.get("APPDATA") or str(home / "AppData" / "Roaming")
        return Path(appdata) / product / "User"
    config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(config) / product / "User"


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    found: set[Path] = set()
    for product in PRODUCTS:
        user = user_dirs(home, platform, env, product)
        storage = user / "workspaceStorage"
        for suffix in ("json", "jsonl"):
            found.update(storage.glob(f"*/chatSessions/*.{suffix}"))
            for folder in GLOBAL_FOLDERS:
                found.update((user / "globalStorage" / folder).glob(f"*.{suffix}"))
        found.update(db for db in storage.glob("*/state.vscdb") if _has_chat_row(db))
    state = home / ".copilot" / "session-state"
    found.update(state.glob("*/events.jsonl"))
    return sorted(found)


def read(path: Path, cursor: Cursor | None = None) -> ReadResult:
    if path.name == "events.jsonl" or (path.suffix == ".jsonl" and _is_cli(path)):
        return read_jsonl(path, cursor, CopilotCliHandler)
    if path.suffix == ".jsonl":
        return read_whole(path, cursor, TOOL, _read_log)
    if path.suffix == ".json":
        return read_whole(path, cursor, TOOL, _read_document)
    return read_whole(path, cursor, TOOL, _read_database)


def _is_cli(path: Path) -> bool:
    records = first_records(path, 1)
    return bool(records) and isinstance(records[0].get("type"), str) and "data" in records[0]


def _project(path: Path) -> str | None:
    """The workspace folder for `workspaceStorage/<id>/chatSessions/x.json` or its DB."""
    workspace = path.parent.parent if path.parent.name == "chatSessions" else path.parent
    return vscdb.workspace_folder(workspace)


def _read_document(ctx: Context) -> Iterator[SessionBuild]:
    data = load_json(ctx.path, ctx.drift)
    return session_builds(ctx, data, _project(ctx.path), ctx.path.stem)


def _read_log(ctx: Context) -> Iterator[SessionBuild]:
    data = replay(ctx.path, ctx.drift)
    if data is None:
        return iter(())
    return session_builds(ctx, data, _project(ctx.path), ctx.path.stem)


def _read_database(ctx: Context) -> Iterator[SessionBuild]:
    conn = vscdb.connect(ctx.path)
    try:
        value = vscdb.item(conn, SESSIONS_KEY, ctx.drift)
    except vscdb.sqlite3.Error as exc:
        raise vscdb.problem(ctx.path, exc) from exc
    finally:
        conn.close()
    yield from database_sessions(ctx, value, _project(ctx.path))


def database_sessions(ctx: Context, value: Any, project: str | None) -> Iterator[SessionBuild]:
    """The sessions of an `interactive.sessions` value: a list or a map of session objects."""
    items = value.values() if isinstance(value, dict) else value
    for n, data in enumerate(items if isinstance(items, (list, type({}.values()))) else []):
        if isinstance(data, dict) and isinstance(data.get("requests"), list):
            yield from session_builds(ctx, data, project, f"{ctx.path.parent.name}#{n}")
