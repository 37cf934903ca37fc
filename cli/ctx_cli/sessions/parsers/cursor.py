"""Cursor: `…/Cursor/User/globalStorage/state.vscdb` (composer and agent chats: `composerData:`
and `bubbleId:` rows of `cursorDiskKV`) and each `workspaceStorage/<hash>/state.vscdb` (the
legacy chat panel, `workbench.panel.aichat.view.aichat.chatdata`, and VS Code-style
`interactive.sessions`).

Opened read-only with a busy timeout (see vscdb.py). A composer's project is the folder of
the workspace whose `composer.composerData` lists it (`workspace.json`); bubble timestamps are
often missing, so the composer's creation and update times bound the session. Tool steps
(`toolFormerData`) become tool-call summaries and results (role `tool`, bounded); thinking is
skipped. A composer whose `lastUpdatedAt` did not change since the last read is not loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions import vscdb
from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.files import FileProblem
from ctx_cli.sessions.model import Cursor, Drift, ReadResult
from ctx_cli.sessions.parsers.copilot import SESSIONS_KEY, database_sessions
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    as_dict,
    clip,
    parse_time,
    str_or,
    stringify,
    tool_summary,
)
from ctx_cli.sessions.whole import Context, read_whole

TOOL = "cursor"
COMPOSER_LIST = "composer.composerData"
LEGACY_CHAT = "workbench.panel.aichat.view.aichat.chatdata"
BUBBLE_KEYS = {
    "_v", "bubbleId", "type", "text", "richText", "createdAt", "requestId", "modelInfo",
    "tokenCount", "toolFormerData", "thinking", "codeBlocks", "context", "isAgentic",
    "unifiedMode", "capabilityType", "checkpointId", "timingInfo", "serverBubbleId",
}  # fmt: skip


def detect(path: Path) -> bool:
    if not vscdb.is_sqlite(path):
        return False
    try:
        conn = vscdb.connect(path)
    except FileProblem:
        return False
    try:
        names = vscdb.tables(conn)
        if "cursorDiskKV" in names and vscdb.prefix_rows(conn, "composerData:", "key")[:1]:
            return True
        if "ItemTable" not in names:
            return False
        keys = (COMPOSER_LIST, LEGACY_CHAT)
        row = conn.execute("SELECT 1 FROM ItemTable WHERE key IN (?, ?)", keys).fetchone()
        return row is not None
    except vscdb.sqlite3.Error:
        return False
    finally:
        conn.close()


def user_dir(home: Path, platform: str, env: Mapping[str, str] | None) -> Path:
    env = env or {}
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Cursor" / "User"
    if platform == "win32":
        return Path(env.get("APPDATA") or home / "AppData" / "Roaming") / "Cursor" / "User"
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "Cursor" / "User"


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """The global database and every workspace database."""
    user = user_dir(home, platform, env)
    found = sorted((user / "workspaceStorage").glob("*/state.vscdb"))
    global_db = user / "globalStorage" / "state.vscdb"
    return ([global_db] if global_db.is_file() else []) + found


def read(path: Path, cursor: Cursor | None = None) -> ReadResult:
    cursor = cursor or Cursor()
    stamp = vscdb.fingerprint(path)
    if cursor.extra.get("stat") == stamp:
        return ReadResult([], cursor)
    result = read_whole(path, cursor, TOOL, _produce, hashed=False)
    if not result.problems:
        result.cursor.extra["stat"] = stamp  # taken before reading: a write meanwhile shows
        result.cursor.size, result.cursor.mtime_ns = stamp[0], stamp[1]
    return result


def _produce(ctx: Context) -> Iterator[SessionBuild]:
    conn = vscdb.connect(ctx.path)
    try:
        names = vscdb.tables(conn)
        if "cursorDiskKV" in names:
            yield from _composers(ctx, conn)
        if "ItemTable" in names:
            yield from _workspace(ctx, conn)
    except vscdb.sqlite3.Error as exc:
        raise vscdb.problem(ctx.path, exc) from exc
    finally:
        conn.close()


# --- composers (global database) -------------------------------------------------------------


def _composers(ctx: Context, conn: vscdb.sqlite3.Connection) -> Iterator[SessionBuild]:
    projects: dict[str, str] | None = None
    for composer_id, version in _versions(conn, ctx.drift):
        if ctx.unchanged(composer_id, version):
            continue
        data = vscdb.item(conn, f"composerData:{composer_id}", ctx.drift, "cursorDiskKV")
        if not isinstance(data, dict):
            continue
        if projects is None:
            projects = workspace_projects(ctx.path)
        build = ctx.build(composer_id, version)
        build.project(projects.get(composer_id))
        _composer(ctx, conn, build, data)
        yield build


def _versions(conn: vscdb.sqlite3.Connection, drift: Drift) -> list[tuple[str, str]]:
    """(composerId, lastUpdatedAt) of every composer, without loading the values when SQLite
    can read the field itself (JSON1); else from the decoded values."""
    try:
        rows = vscdb.prefix_rows(
            conn, "composerData:", "key, json_extract(CAST(value AS TEXT), '$.lastUpdatedAt')"
        )
        return [(str(k).split(":", 1)[1], str(v or "")) for k, v in rows]
    except vscdb.sqlite3.OperationalError:
        out: list[tuple[str, str]] = []
        for key, value in vscdb.prefix_rows(conn, "composerData:"):
            data = vscdb.decode(value, drift, "")
            version = data.get("lastUpdatedAt") if isinstance(data, dict) else None
            out.append((str(key).split(":", 1)[1], str(version or "")))
        return out


def _composer(
    ctx: Context, conn: vscdb.sqlite3.Connection, build: SessionBuild, data: dict[str, Any]
) -> None:
    build.title(data.get("name"))
    build.touch(parse_time(data.get("createdAt")))
    build.touch(parse_time(data.get("lastUpdatedAt")))
    build.note("mode", data.get("unifiedMode") or data.get("forceMode"))
    model = as_dict(data.get("modelConfig"))
    build.note("model", model.get("modelName"))
    headers = data.get("fullConversationHeadersOnly")
    if isinstance(headers, list):
        prefix = f"bubbleId:{build.key}:"
        stored = {str(k)[len(prefix) :]: v for k, v in vscdb.prefix_rows(conn, prefix)}
        for header in headers:
            bubble_id = header.get("bubbleId") if isinstance(header, dict) else None
            if bubble_id in stored:
                where = f"bubble {str(bubble_id)[:40]}: "
                bubble = vscdb.decode(stored[bubble_id], ctx.drift, where)
                if isinstance(bubble, dict):
                    _bubble(build, bubble, ctx.drift, where)
    elif isinstance(data.get("conversation"), list):  # older: bubbles embedded
        for bubble in data["conversation"]:
            if isinstance(bubble, dict):
                _bubble(build, bubble, ctx.drift, "")
    else:
        ctx.drift.missing_field("composerData.fullConversationHeadersOnly", "")


def _bubble(build: SessionBuild, bubble: dict[str, Any], drift: Drift, where: str) -> None:
    for key in bubble:
        if key not in BUBBLE_KEYS:
            drift.unknown_field(f"bubble.{key}", where)
    kind = bubble.get("type")
    if kind not in (1, 2):
        drift.unknown_type(f"bubble:{kind}", where)
        return
    stamp = parse_time(bubble.get("createdAt")) or _client_time(bubble)
    ident = bubble.get("bubbleId") if isinstance(bubble.get("bubbleId"), str) else None
    text = str_or(bubble.get("text"), "")
    if not text.strip() and isinstance(bubble.get("richText"), str):
        text = rich_text(bubble["richText"])
    draft = Draft("user" if kind == 1 else "assistant", [text], timestamp=stamp, external_id=ident)
    if bubble.get("modelInfo") and isinstance(bubble["modelInfo"], dict):
        build.note("model", bubble["modelInfo"].get("modelName"))
    build.add(draft)
    tool = bubble.get("toolFormerData")
    if isinstance(tool, dict) and tool.get("name"):
        _tool_step(build, draft, tool, stamp, ident)


def _tool_step(
    build: SessionBuild, draft: Draft, tool: dict[str, Any], stamp: Any, ident: str | None
) -> None:
    args = tool.get("params") or tool.get("rawArgs")
    draft.tool_calls.append(tool_summary(tool.get("name"), args))
    result = tool.get("result")
    if result:
        body = stringify(result)
        step = Draft("tool", [f"[{clip(tool.get('name'), 80)}] {body}"], timestamp=stamp)
        step.external_id = f"{ident}:result" if ident else None
        step.limit = MAX_TOOL_TEXT
        if tool.get("status") == "error":
            step.flag("error")
        build.add(step)


def _client_time(bubble: dict[str, Any]) -> Any:
    timing = bubble.get("timingInfo")
    return parse_time(timing.get("clientStartTime")) if isinstance(timing, dict) else None


def rich_text(value: str) -> str:
    """The plain text of a Lexical editor state (the `richText` JSON string)."""
    try:
        root = json.loads(value)
    except (ValueError, RecursionError):
        return ""
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            children = node.get("children") or ([node["root"]] if "root" in node else [])
            if isinstance(children, list):
                stack.extend(reversed(children))
    return "".join(out)


def workspace_projects(global_db: Path) -> dict[str, str]:
    """composerId → project folder, from every workspace database beside the global one."""
    mapping: dict[str, str] = {}
    storage = global_db.parent.parent / "workspaceStorage"
    for db in sorted(storage.glob("*/state.vscdb")):
        folder = vscdb.workspace_folder(db.parent)
        if folder is None:
            continue
        try:
            conn = vscdb.connect(db)
        except FileProblem:
            continue
        try:
            listing = vscdb.item(conn, COMPOSER_LIST, Drift())
        except vscdb.sqlite3.Error:
            listing = None
        finally:
            conn.close()
        composers = listing.get("allComposers") if isinstance(listing, dict) else None
        for entry in composers if isinstance(composers, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
                mapping[entry["composerId"]] = folder
    return mapping


# --- legacy chat panel and interactive.sessions (workspace databases) ------------------------


def _workspace(ctx: Context, conn: vscdb.sqlite3.Connection) -> Iterator[SessionBuild]:
    project = vscdb.workspace_folder(ctx.path.parent)
    chat = vscdb.item(conn, LEGACY_CHAT, ctx.drift)
    tabs = chat.get("tabs") if isinstance(chat, dict) else None
    for n, tab in enumerate(tabs if isinstance(tabs, list) else []):
        if isinstance(tab, dict):
            yield _tab(ctx, tab, project, n)
    sessions = vscdb.item(conn, SESSIONS_KEY, ctx.drift)
    if sessions is not None:
        yield from database_sessions(ctx, sessions, project)


def _tab(ctx: Context, tab: dict[str, Any], project: str | None, n: int) -> SessionBuild:
    key = str(tab.get("tabId") or f"{ctx.path.parent.name}#tab{n}")
    build = ctx.build(key)
    build.project(project)
    build.title(tab.get("chatTitle"))
    build.note("origin", "legacy-chat")
    bubbles = tab.get("bubbles")
    for bubble in bubbles if isinstance(bubbles, list) else []:
        if not isinstance(bubble, dict):
            continue
        kind = bubble.get("type")
        if kind not in ("user", "ai"):
            ctx.drift.unknown_type(f"legacy bubble:{kind}", "")
            continue
        text = bubble.get("text") or bubble.get("rawText") or bubble.get("delegate") or ""
        role = "user" if kind == "user" else "assistant"
        stamp = parse_time(bubble.get("timestamp") or bubble.get("lastSendTime"))
        build.add(
            Draft(role, [stringify(text, 10**9)], timestamp=stamp, external_id=bubble.get("id"))
        )
    return build
