"""The driver shared by whole-file formats (JSON documents, exports, SQLite): parse when the
file's content hash changed, then return per session only what its mark has not seen."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable

from ctx_cli.sessions.build import Mark, SessionBuild, emit_full
from ctx_cli.sessions.files import FileProblem, whole_file_unchanged
from ctx_cli.sessions.model import Cursor, Drift, ReadResult, Session


class Context:
    """What a whole-file parser gets: the path, drift, and builders primed with the marks."""

    def __init__(self, path: Path, cursor: Cursor, drift: Drift, tool: str) -> None:
        self.path = path
        self.cursor = cursor
        self.drift = drift
        self.tool = tool
        self.extra: dict[str, Any] = dict(cursor.extra)
        self.problems: list[str] = []

    def build(self, key: str, version: str = "") -> SessionBuild:
        build = SessionBuild(self.tool, key, Mark.from_dict(self.cursor.sessions.get(key)))
        build.mark.version = version
        return build

    def unchanged(self, key: str, version: str) -> bool:
        """Whether the session's change token equals the one seen last time (skip building)."""
        known = self.cursor.sessions.get(key)
        return bool(version) and isinstance(known, dict) and known.get("v") == version


Producer = Callable[[Context], Iterable[SessionBuild]]
OnSession = Callable[[Session], None]


def read_whole(
    path: Path,
    cursor: Cursor | None,
    tool: str,
    produce: Producer,
    *,
    hashed: bool = True,
    on_session: OnSession | None = None,
) -> ReadResult:
    """Parse `path` with `produce` unless its content hash is the cursor's.

    `hashed=False` (SQLite) leaves change detection to the producer (row ids, timestamps).
    `on_session`, when given, receives each session as soon as it is built, and the result's
    list stays empty: a large export then never holds more than one conversation's messages.
    """
    cursor = cursor or Cursor(tool=tool)
    drift = Drift()
    try:
        if hashed:
            unchanged, new = whole_file_unchanged(path, cursor)
            if unchanged:
                return ReadResult([], new, drift)
        else:
            new = Cursor(tool=tool, sessions=cursor.sessions, extra=cursor.extra)
    except FileProblem as exc:
        return ReadResult([], cursor, drift, [str(exc)])
    context = Context(path, cursor, drift, tool)
    sessions, marks = _collect(context, produce, on_session)
    new.tool = tool
    new.sessions = marks
    new.extra = context.extra
    if context.problems:
        new.file_hash = ""  # read again next time; the marks keep what was returned
    rewritten = bool(cursor.file_hash) or bool(cursor.sessions)
    return ReadResult(sessions, new, drift, context.problems, rewritten=rewritten)


def _collect(
    context: Context, produce: Producer, on_session: OnSession | None
) -> tuple[list[Session], dict[str, Any]]:
    sessions: list[Session] = []
    marks = dict(context.cursor.sessions)
    try:
        for build in produce(context):
            session = emit_full(build)
            marks[build.key] = build.mark.to_dict()
            if session is not None and on_session is not None:
                on_session(session)
            elif session is not None:
                sessions.append(session)
    except FileProblem as exc:
        context.problems.append(str(exc))
    except Exception as exc:
        context.drift.error("", exc)
        context.problems.append(
            f"{context.path}: reading stopped at an unexpected record ({exc!r})"
        )
    return sessions, marks
