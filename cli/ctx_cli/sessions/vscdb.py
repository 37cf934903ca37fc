"""VS Code-style `state.vscdb` key-value databases (Cursor, VS Code), opened read-only.

Opened with a `mode=ro` URI and a busy timeout, so reading works while the editor holds the
file open (WAL readers are not blocked); a database locked for longer is reported as a
per-file problem.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ctx_cli.sessions.files import FileProblem, read_head
from ctx_cli.sessions.model import Drift

BUSY_TIMEOUT_S = 2.0  # how long a read waits for a writer's lock before giving up
SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite(path: Path) -> bool:
    return read_head(path, len(SQLITE_MAGIC)) == SQLITE_MAGIC


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection; raises FileProblem with a sentence the user can act on."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise problem(path, exc) from exc
    return conn


def problem(path: Path, exc: sqlite3.Error) -> FileProblem:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return FileProblem(
            f"{path} is locked by another process (the editor may be writing it); "
            "it will be read on the next run"
        )
    return FileProblem(f"cannot read the database {path}: {text}")


def tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(r[0]) for r in rows}


def decode(value: Any, drift: Drift, where: str) -> Any:
    """A stored JSON value (TEXT or a UTF-8 BLOB); None when it is not JSON."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            drift.encoding(where)
            text = raw.decode("utf-8", "replace")
    else:
        text = str(value)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        drift.unreadable(where, "a value that is not JSON")
        return None


def item(conn: sqlite3.Connection, key: str, drift: Drift, table: str = "ItemTable") -> Any:
    """One value by exact key (the tables are indexed on key), decoded."""
    assert table in ("ItemTable", "cursorDiskKV")
    row = conn.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()  # noqa: S608
    return decode(row[0], drift, f"{table}[{key[:60]}]: ") if row else None


def prefix_rows(
    conn: sqlite3.Connection, prefix: str, columns: str = "key, value"
) -> list[tuple[Any, ...]]:
    """cursorDiskKV rows whose key starts with `prefix`, as a range scan on the key index."""
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    query = f"SELECT {columns} FROM cursorDiskKV WHERE key >= ? AND key < ?"  # noqa: S608
    return conn.execute(query, (prefix, upper)).fetchall()


def fingerprint(path: Path) -> list[int]:
    """Size and mtime of the database and its WAL: unchanged means nothing to read."""
    values: list[int] = []
    for candidate in (path, Path(f"{path}-wal")):
        try:
            st = os.stat(candidate)
            values += [st.st_size, st.st_mtime_ns]
        except OSError:
            values += [-1, -1]
    return values


def workspace_folder(workspace_dir: Path) -> str | None:
    """The folder a workspace-storage directory belongs to, from its `workspace.json`."""
    try:
        data = json.loads((workspace_dir / "workspace.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    uri = data.get("folder") or data.get("workspace")
    return uri_path(uri) if isinstance(uri, str) else None


def uri_path(uri: str) -> str:
    """`file:///home/me/app` → `/home/me/app`; `file:///c%3A/x` → `c:/x`; others unchanged."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":
        path = path[1:]  # a Windows drive letter
    return path
