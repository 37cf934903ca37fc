"""The normalised shapes every parser returns: messages, sessions, cursors, drift, results.

Identity contract for the receiver (the uploader and the server):
- a message is identified within its session by `content_hash` (sha256 over role, text,
  timestamp and tool-call summaries), so a message read twice is recognised as the same one;
- `index` orders messages within a session; a message flagged `revised` has the index of one
  sent earlier whose content grew (a streamed response read mid-write) and replaces it;
- a session with `replaces_earlier` carries its complete current message list: the tool itself
  rewrote its history (a branch switch, a rewind, an edited prompt), so earlier messages of
  that session that are not in the list are gone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

ROLES = ("user", "assistant", "tool", "system")
MAX_EXAMPLES = 10
CURSOR_VERSION = 1


def message_hash(role: str, text: str, timestamp: datetime | None, tool_calls: list[str]) -> str:
    """sha256 of role, text, timestamp and the tool-call summaries, separated by control bytes.

    The tool calls are part of it because a tool-only step has no text: two such steps at the
    same second would otherwise look identical.
    """
    stamp = timestamp.isoformat() if timestamp is not None else ""
    joined = "\x1e".join(tool_calls)
    payload = f"{role}\x1f{text}\x1f{stamp}\x1f{joined}"
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Message:
    index: int
    role: str
    text: str
    timestamp: datetime | None = None
    external_id: str | None = None
    tool_calls: list[str] = field(default_factory=list)
    # Markers such as "sidechain", "compact_summary", "injected", "error", "truncated",
    # "revised": what the text is, when it is not a plain typed prompt or answer.
    flags: list[str] = field(default_factory=list)
    content_hash: str = ""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}")
        if not self.content_hash:
            self.content_hash = message_hash(self.role, self.text, self.timestamp, self.tool_calls)


@dataclass
class Session:
    tool: str
    external_id: str
    project_root: str | None = None  # the recorded cwd, never decoded from a directory name
    git_branch: str | None = None
    git_commit: str | None = None
    title: str | None = None
    started_at: datetime | None = None
    last_activity_at: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    parent_external_id: str | None = None  # a subagent transcript's parent session
    is_sidechain: bool = False
    replaces_earlier: bool = False
    meta: dict[str, str] = field(default_factory=dict)  # model, origin, …: short strings only


@dataclass
class Cursor:
    """Opaque per-file state: pass the one a read returned to the next read of the same file.

    `to_dict()` / `Cursor.from_dict()` give a JSON-safe form to persist between runs.
    """

    version: int = CURSOR_VERSION
    tool: str = ""
    size: int = -1
    mtime_ns: int = -1
    offset: int = 0  # JSONL: where the next read starts (end of the last line used)
    prefix_hash: str = ""  # JSONL: sha256 of bytes [0, offset)
    lines: int = 0  # JSONL: lines before offset (for line numbers in drift examples)
    file_hash: str = ""  # whole-file JSON and ZIP: sha256 of the file
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)  # per-session marks
    extra: dict[str, Any] = field(default_factory=dict)  # parser-specific (SQLite row ids, …)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "tool": self.tool,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "offset": self.offset,
            "prefix_hash": self.prefix_hash,
            "lines": self.lines,
            "file_hash": self.file_hash,
            "sessions": self.sessions,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Cursor:
        """A cursor from its stored form; an unknown version gives a fresh cursor (full read)."""
        if not data or data.get("version") != CURSOR_VERSION:
            return cls()
        return cls(
            tool=str(data.get("tool", "")),
            size=int(data.get("size", -1)),
            mtime_ns=int(data.get("mtime_ns", -1)),
            offset=int(data.get("offset", 0)),
            prefix_hash=str(data.get("prefix_hash", "")),
            lines=int(data.get("lines", 0)),
            file_hash=str(data.get("file_hash", "")),
            sessions=dict(data.get("sessions") or {}),
            extra=dict(data.get("extra") or {}),
        )


@dataclass
class Drift:
    """What a parser met that its format description does not know. Never message text."""

    unknown_types: dict[str, int] = field(default_factory=dict)
    unknown_fields: dict[str, int] = field(default_factory=dict)
    missing_fields: dict[str, int] = field(default_factory=dict)
    unreadable_lines: int = 0
    bad_encoding: int = 0
    # Records the parser failed on (a bug or a shape nothing anticipated): skipped, counted.
    errors: int = 0
    examples: list[str] = field(default_factory=list)

    def example(self, text: str) -> None:
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(text[:200])

    def unknown_type(self, name: str, where: str = "") -> None:
        name = name[:80]
        self.unknown_types[name] = self.unknown_types.get(name, 0) + 1
        if self.unknown_types[name] == 1:
            self.example(f"{where}unknown record type {name!r}")

    def unknown_field(self, path: str, where: str = "") -> None:
        path = path[:120]
        self.unknown_fields[path] = self.unknown_fields.get(path, 0) + 1
        if self.unknown_fields[path] == 1:
            self.example(f"{where}unknown field {path!r}")

    def missing_field(self, path: str, where: str = "") -> None:
        path = path[:120]
        self.missing_fields[path] = self.missing_fields.get(path, 0) + 1
        if self.missing_fields[path] == 1:
            self.example(f"{where}expected field {path!r} missing")

    def unreadable(self, where: str, why: str) -> None:
        self.unreadable_lines += 1
        self.example(f"{where}{why}")

    def encoding(self, where: str) -> None:
        self.bad_encoding += 1
        if self.bad_encoding == 1:
            self.example(f"{where}invalid UTF-8, decoded with replacement characters")

    def error(self, where: str, exc: BaseException) -> None:
        self.errors += 1
        self.example(f"{where}a record could not be read ({type(exc).__name__})")

    @property
    def total(self) -> int:
        return (
            sum(self.unknown_types.values())
            + sum(self.unknown_fields.values())
            + sum(self.missing_fields.values())
            + self.unreadable_lines
            + self.bad_encoding
            + self.errors
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "unknown_types": dict(self.unknown_types),
            "unknown_fields": dict(self.unknown_fields),
            "missing_fields": dict(self.missing_fields),
            "unreadable_lines": self.unreadable_lines,
            "bad_encoding": self.bad_encoding,
            "errors": self.errors,
            "examples": list(self.examples),
        }


@dataclass
class ReadResult:
    sessions: list[Session]  # only the sessions with new (or revised) messages, or new metadata
    cursor: Cursor
    drift: Drift = field(default_factory=Drift)
    problems: list[str] = field(default_factory=list)  # per-file, for the user: why not read
    rewritten: bool = False  # the file changed in place and was read again from the start

    @property
    def message_count(self) -> int:
        return sum(len(s.messages) for s in self.sessions)
