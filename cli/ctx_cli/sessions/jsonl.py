"""The driver shared by the JSONL parsers: cursor handling around a per-tool record handler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Mark, SessionBuild, emit_full, emit_tail
from ctx_cli.sessions.files import Checkpoint, FileProblem, JsonlFile, Line
from ctx_cli.sessions.model import Cursor, Drift, ReadResult, Session


class Restart(Exception):
    """Raised by a handler that met a record needing the whole file (a rewind into the past)."""


class Handler:
    """Base of a per-tool JSONL handler: records in, session builds out."""

    tool = ""

    def __init__(self, path: Path, cursor: Cursor, drift: Drift, jsonl: JsonlFile) -> None:
        self.path = path
        self.cursor = cursor
        self.drift = drift
        self.jsonl = jsonl
        self.full = jsonl.status != "resumed"
        self.builds: dict[str, SessionBuild] = {}
        self.extra: dict[str, Any] = {} if self.full else dict(cursor.extra)
        self.resume: Checkpoint | None = None
        self.reopened: str | None = None if self.full else self.extra.pop("open", None)

    def record(self, record: dict[str, Any], line: Line) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Called after the last line, before the sessions are emitted."""

    def build(self, key: str) -> SessionBuild:
        existing = self.builds.get(key)
        if existing is not None:
            return existing
        # Resumed: the mark numbers the new messages. Rewritten: emit_full compares the whole
        # list with what was returned before, so nothing comes back twice.
        known = self.cursor.sessions.get(key)
        mark = Mark.from_dict(known) if known is not None else None
        build = SessionBuild(self.tool, key, mark)
        self.builds[key] = build
        return build

    def emit(self, build: SessionBuild) -> Session | None:
        """The session with its new messages (None: nothing new); see build.emit_full/tail."""
        if self.full:
            return emit_full(build)
        reopened = self.reopened
        key = build.key
        again = (
            isinstance(reopened, dict) and reopened.get("key") == key and reopened.get("emitted")
        )
        base = build.mark.n - 1 if again else build.mark.n
        return emit_tail(build, max(base, 0), bool(again))

    def hold_open(self, key: str, checkpoint: Checkpoint, emitted: bool) -> None:
        """The next read starts again at `checkpoint`: the last message may still grow."""
        self.resume = checkpoint
        self.extra["open"] = {"key": key, "emitted": emitted}


def read_jsonl(path: Path, cursor: Cursor | None, handler_cls: type[Handler]) -> ReadResult:
    cursor = cursor or Cursor(tool=handler_cls.tool)
    drift = Drift()
    jsonl = JsonlFile(path, cursor, drift)
    try:
        status = jsonl.prepare()
        if status == "unchanged":
            return ReadResult([], cursor, drift)
        handler = _run(path, cursor, drift, jsonl, handler_cls)
        handler.finish()
        sessions = _emit(handler)
        new = jsonl.cursor_at(handler.resume)
    except FileProblem as exc:
        return ReadResult([], cursor, drift, [str(exc)])
    finally:
        jsonl.close()
    new.tool = handler_cls.tool
    new.sessions = dict(cursor.sessions)
    new.sessions.update({key: b.mark.to_dict() for key, b in handler.builds.items()})
    new.extra = handler.extra
    return ReadResult(sessions, new, handler.drift, rewritten=jsonl.status == "rewritten")


def _run(
    path: Path, cursor: Cursor, drift: Drift, jsonl: JsonlFile, handler_cls: type[Handler]
) -> Handler:
    handler = handler_cls(path, cursor, drift, jsonl)
    try:
        _feed(handler, jsonl)
    except Restart:
        jsonl.restart()
        jsonl.status = "rewritten"
        jsonl.drift = drift = Drift()  # counted again from the first line
        handler = handler_cls(path, cursor, drift, jsonl)
        _feed(handler, jsonl)
    return handler


def _feed(handler: Handler, jsonl: JsonlFile) -> None:
    for line in jsonl:
        try:
            handler.record(line.record, line)
        except Restart:
            raise
        except Exception as exc:
            handler.drift.error(line.where, exc)


def _emit(handler: Handler) -> list[Session]:
    sessions = (handler.emit(build) for build in handler.builds.values())
    return [s for s in sessions if s is not None]
