"""`ctx sessions import`: find the AI tools' logs, read what is new since the last run, upload
it in batches, wait for the server's import jobs, then remember how far each file was read.

Batches are bounded by message count and bytes (the server refuses more with 413). A file's
cursor is saved only when every job carrying its messages is done; a failed job leaves the
file to be read again, and the server recognises the messages it already has by their hash.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from datetime import time as clock
from pathlib import Path
from typing import Any

from ctx_cli import CliError
from ctx_cli.http import ApiError, Client
from ctx_cli.session_state import State
from ctx_cli.sessions import parsers
from ctx_cli.sessions.model import Cursor, ReadResult, Session

BATCH_MESSAGES = 1000
BATCH_BYTES = 4_000_000  # of JSON; the server reads 8 MB at most and 6 MB of message text
# Jobs queued on the server at once, the next batch parsed meanwhile: the server imports two
# at a time (its ingest worker's processes), so while the client waits for the oldest job two
# others run and one more waits its turn, and a finished job's process starts the next at
# once (the bench's 10,000 messages: 972 -> 1,193 messages/s over 3).
IN_FLIGHT = 4
# Polls of a job grow to at most POLL_MAX apart: a job takes about a second, and the last
# jobs' results were seen up to a second late (a cheap GET each).
POLL_FIRST, POLL_MAX = 0.05, 0.25
JOB_TIMEOUT = 600.0
EXPORT_TOOLS = ("chatgpt", "claude-ai")  # given by hand: a ZIP or conversations.json
META_BYTES = 2000


@dataclass
class Options:
    tools: list[str]
    path: Path | None = None
    since: datetime | None = None
    dry_run: bool = False
    full: bool = False  # ignore the saved cursors: read every file from the start
    restore_deleted: bool = False
    scope: str | None = None
    batch_messages: int = BATCH_MESSAGES
    batch_bytes: int = BATCH_BYTES
    machine: str = field(default_factory=socket.gethostname)
    job_timeout: float = JOB_TIMEOUT


@dataclass(frozen=True)
class Target:
    tool: str
    path: Path


@dataclass
class ToolCounts:
    files: int = 0
    files_unchanged: int = 0
    sessions: dict[str, int] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)

    def add(self, bucket: dict[str, int], name: str, n: int = 1) -> None:
        if n:
            bucket[name] = bucket.get(name, 0) + n


@dataclass
class Summary:
    tools: dict[str, ToolCounts] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)  # files and sessions, with why
    drift: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    dry_run: bool = False

    def tool(self, name: str) -> ToolCounts:
        return self.tools.setdefault(name, ToolCounts())

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "tools": {
                name: {
                    "files": c.files,
                    "files_unchanged": c.files_unchanged,
                    "sessions": dict(c.sessions),
                    "messages": dict(c.messages),
                }
                for name, c in sorted(self.tools.items())
            },
            "skipped": self.skipped,
            "drift": self.drift,
            "failed": self.failed,
        }


# --- finding the files ---------------------------------------------------------------------------


def platform_name() -> str:
    return "win32" if sys.platform.startswith("win") else sys.platform


def _exports_in(folder: Path, tools: Iterable[str]) -> list[Target]:
    """Export files directly inside `folder` (`conversations.json`, a ZIP) of these tools."""
    found = []
    for item in sorted(folder.iterdir()):
        if item.is_file() and item.suffix.lower() in (".json", ".zip"):
            for tool in parsers.identify(item):
                if tool in tools and tool in EXPORT_TOOLS:
                    found.append(Target(tool, item))
    return found


def targets(
    options: Options, home: Path, env: Mapping[str, str]
) -> tuple[list[Target], list[dict[str, str]]]:
    """The files to read, and problems (a path nobody can read) as skipped entries."""
    if options.path is None:
        found = [
            Target(tool, p)
            for tool in options.tools
            for p in parsers.get(tool).locate(home, platform_name(), env)
        ]
        return _unique(found), []
    path = options.path.expanduser().resolve()
    if path.is_dir():  # a home directory (another machine's backup) or an export folder
        found = [
            Target(tool, p)
            for tool in options.tools
            for p in parsers.get(tool).locate(path, platform_name(), {})
        ]
        return _unique(found + _exports_in(path, options.tools)), []
    if not path.exists():
        return [], [{"path": str(path), "reason": "does not exist"}]
    return _one_file(path, options.tools)


def _one_file(path: Path, tools: list[str]) -> tuple[list[Target], list[dict[str, str]]]:
    if len(tools) == 1:  # --tool: read_as refuses it if it is another tool's
        return [Target(tools[0], path)], []
    known = parsers.identify(path)
    if len(known) == 1:
        return [Target(known[0], path)], []
    why = "its format is not recognised" if not known else f"it could be {', '.join(known)}"
    return [], [{"path": str(path), "reason": f"{why}; name the tool with --tool"}]


def _unique(found: list[Target]) -> list[Target]:
    seen: set[tuple[str, str]] = set()
    out = []
    for t in found:
        key = (t.tool, str(t.path.resolve()))
        if key not in seen:
            seen.add(key)
            out.append(Target(t.tool, t.path.resolve()))
    return out


# --- the wire shape ------------------------------------------------------------------------------


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _meta(meta: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in meta.items():
        out[str(key)[:60]] = str(value)[:200]
        if len(json.dumps(out)) > META_BYTES:
            out.pop(str(key)[:60])
            break
    return out


def _cursor_note(cursor: Cursor) -> dict[str, Any]:
    """What the server keeps of a cursor (its Source row): small, never the per-session marks."""
    return {"offset": cursor.offset, "size": cursor.size, "file_hash": cursor.file_hash[:16]}


def wire_session(session: Session, path: Path, cursor: Cursor) -> dict[str, Any]:
    return {
        "tool": session.tool,
        "external_id": session.external_id[:200],
        "title": (session.title or "")[:500],
        "project_root": (session.project_root or "")[:1000],
        "git_branch": (session.git_branch or "")[:200],
        "git_commit": (session.git_commit or "")[:64],
        "started_at": _iso(session.started_at),
        "last_activity_at": _iso(session.last_activity_at),
        "parent_external_id": (session.parent_external_id or "")[:200],
        "is_sidechain": session.is_sidechain,
        "replaces_earlier": session.replaces_earlier,
        "meta": _meta(session.meta),
        "source": {"path": str(path)[:1000], "cursor": _cursor_note(cursor)},
        "messages": [
            {
                "index": m.index,
                "role": m.role,
                "text": m.text,
                "timestamp": _iso(m.timestamp),
                "external_id": (m.external_id or "")[:200] or None,
                "tool_calls": [c[:300] for c in m.tool_calls[:200]],
                "flags": [f[:32] for f in m.flags[:20]],
                "content_hash": m.content_hash,
            }
            for m in session.messages
        ],
    }


def _size(message: dict[str, Any]) -> int:
    return (
        len(message["text"].encode("utf-8", "replace"))
        + 120
        + sum(len(c) for c in message["tool_calls"])
    )


def active_since(session: Session, since: datetime | None) -> bool:
    if since is None:
        return True
    moment = session.last_activity_at or session.started_at
    return moment is None or moment >= since


# --- batches and jobs ----------------------------------------------------------------------------


@dataclass
class Batch:
    sessions: list[dict[str, Any]] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    messages: int = 0
    size: int = 0
    barrier: bool = False  # a rewritten session's later part: the earlier parts go first


def chunks(wire: dict[str, Any], limit_messages: int, limit_bytes: int) -> Iterable[dict[str, Any]]:
    """A session split so that each part fits a batch; only the first part keeps
    `replaces_earlier` (the later ones add to what it left)."""
    messages = wire["messages"]
    if not messages:
        yield wire
        return
    part: list[dict[str, Any]] = []
    size = 0
    first = True
    for message in messages:
        n = _size(message)
        if part and (len(part) >= limit_messages or size + n > limit_bytes):
            yield {**wire, "messages": part, "replaces_earlier": wire["replaces_earlier"] and first}
            first, part, size = False, [], 0
        part.append(message)
        size += n
    yield {**wire, "messages": part, "replaces_earlier": wire["replaces_earlier"] and first}


def split(batch: Batch) -> list[Batch]:
    """A batch in two halves: its sessions, or the messages of its one session."""
    if len(batch.sessions) > 1:
        middle = len(batch.sessions) // 2
        groups = [batch.sessions[:middle], batch.sessions[middle:]]
    else:
        (wire,) = batch.sessions
        half = max(1, len(wire["messages"]) // 2)
        groups = [[part] for part in chunks(wire, half, 10**12)]
    halves = []
    for number, group in enumerate(groups):
        n = sum(len(w["messages"]) for w in group)
        rewritten = number > 0 and any(w["replaces_earlier"] for w in groups[0])
        halves.append(Batch(group, set(batch.files), n, 0, barrier=batch.barrier or rewritten))
    return halves


@dataclass
class Pending:
    job: str
    files: set[str]


class Uploader:
    """Sends batches, keeps up to IN_FLIGHT jobs queued, collects their results."""

    def __init__(self, client: Client, options: Options, summary: Summary) -> None:
        self.client = client
        self.options = options
        self.summary = summary
        self.pending: list[Pending] = []
        self.failed_files: set[str] = set()
        self.done_jobs: dict[str, int] = {}  # file -> jobs finished

    def send(self, batch: Batch) -> None:
        if batch.barrier:
            self.drain()
        body: dict[str, Any] = {
            "sessions": batch.sessions,
            "machine": self.options.machine,
            "restore_deleted": self.options.restore_deleted,
        }
        if self.options.scope:
            body["scope"] = self.options.scope
        try:
            job = self.client.post("/api/sessions/import", body)["job"]
        except ApiError as exc:
            if exc.status != 413 or batch.messages < 2:
                raise
            for half in split(batch):  # the server takes less than we thought: halve it
                self.send(half)
            return
        self.pending.append(Pending(str(job["id"]), set(batch.files)))
        while len(self.pending) >= IN_FLIGHT:
            self._finish(self.pending.pop(0))

    def drain(self) -> None:
        while self.pending:
            self._finish(self.pending.pop(0))

    def _finish(self, pending: Pending) -> None:
        job = self._wait(pending.job)
        if job.get("status") != "done":
            self.failed_files |= pending.files
            error = str(job.get("error") or job.get("status"))
            self.summary.failed.append({"job": pending.job, "error": error})
            return
        for row in (job.get("result") or {}).get("sessions", []):
            self._count(row)

    def _wait(self, job_id: str) -> dict[str, Any]:
        delay, deadline = POLL_FIRST, time.monotonic() + self.options.job_timeout
        while True:
            job = self.client.get(f"/api/jobs/{job_id}")["job"]
            if job.get("status") in ("done", "failed") or time.monotonic() > deadline:
                return dict(job)
            time.sleep(delay)
            delay = min(POLL_MAX, delay * 1.5)

    def _count(self, row: dict[str, Any]) -> None:
        counts = self.summary.tool(str(row.get("tool")))
        status = str(row.get("status"))
        counts.add(counts.sessions, status)
        for name, n in (row.get("messages") or {}).items():
            counts.add(counts.messages, name, int(n))
        if status == "skipped":
            self.summary.skipped.append(
                {
                    "path": f"{row.get('tool')} session {row.get('external_id')}",
                    "reason": f"{row.get('reason')} on the server (--restore-deleted imports it)",
                }
            )


# --- one run -------------------------------------------------------------------------------------

Progress = Callable[[Target, int], None]


def _drift(target: Target, result: ReadResult) -> dict[str, Any] | None:
    if result.drift.total == 0:
        return None
    return {
        "path": str(target.path),
        "tool": target.tool,
        "total": result.drift.total,
        **result.drift.to_dict(),
    }


class Run:
    """One import run: each target read once, its sessions batched, the cursors saved last."""

    def __init__(
        self,
        client: Client | None,
        state: State | None,
        options: Options,
        progress: Progress = lambda target, messages: None,
    ) -> None:
        self.state = state
        self.options = options
        self.progress = progress
        self.summary = Summary(dry_run=options.dry_run)
        self.uploader = (
            None if options.dry_run or client is None else Uploader(client, options, self.summary)
        )
        self.batch = Batch()
        self.cursors: dict[str, tuple[Target, Cursor]] = {}

    def _read(self, target: Target) -> ReadResult | None:
        saved = self.state.cursor(target.path, target.tool) if self.state else None
        try:
            result = parsers.read_as(target.tool, target.path, None if self.options.full else saved)
        except (OSError, ValueError) as exc:  # a parser bug or an I/O error: this file only
            self.summary.skipped.append({"path": str(target.path), "reason": f"unreadable: {exc}"})
            return None
        for problem in result.problems:
            self.summary.skipped.append({"path": str(target.path), "reason": problem})
        drift = _drift(target, result)
        if drift:
            self.summary.drift.append(drift)
        return None if result.problems and not result.sessions else result

    def file(self, target: Target) -> None:
        counts = self.summary.tool(target.tool)
        counts.files += 1
        result = self._read(target)
        if result is None:
            self.progress(target, 0)
            return
        self.cursors[str(target.path)] = (target, result.cursor)
        if not result.sessions:
            counts.files_unchanged += 1
        sent = sum(self._session(target, result, session) for session in result.sessions)
        self.progress(target, sent)

    def _session(self, target: Target, result: ReadResult, session: Session) -> int:
        counts = self.summary.tool(target.tool)
        n = len(session.messages)
        if not active_since(session, self.options.since):
            counts.add(counts.sessions, "skipped")
            counts.add(counts.messages, "skipped", n)
            where = f"{target.tool} session {session.external_id}"
            self.summary.skipped.append({"path": where, "reason": "inactive since --since"})
            return 0
        if self.uploader is None:  # a dry run counts what would be sent
            counts.add(counts.sessions, "would send")
            counts.add(counts.messages, "would send", n)
            return n
        wire = wire_session(session, target.path, result.cursor)
        self.batch = _add(self.batch, wire, str(target.path), self.options, self.uploader)
        return n

    def finish(self) -> Summary:
        """Send the last batch, wait for every job, save the cursors of the files done."""
        if self.uploader is not None:
            self.batch = _flush(self.batch, self.uploader)
            self.uploader.drain()
        if self.state is not None and not self.options.dry_run and self.options.since is None:
            failed = self.uploader.failed_files if self.uploader else set()
            for key, (target, cursor) in self.cursors.items():
                if key not in failed:
                    self.state.remember(target.path, target.tool, cursor)
            self.state.save()
        return self.summary


def run(
    client: Client | None,
    state: State | None,
    options: Options,
    found: list[Target],
    progress: Progress = lambda target, messages: None,
) -> Summary:
    """Read every target, upload (unless a dry run), save the cursors of files fully done."""
    one = Run(client, state, options, progress)
    for target in found:
        one.file(target)
    return one.finish()


def _add(
    batch: Batch, wire: dict[str, Any], path: str, options: Options, uploader: Uploader
) -> Batch:
    """Put a session (in parts if large) into batches, sending each batch once full."""
    for number, part in enumerate(chunks(wire, options.batch_messages, options.batch_bytes)):
        size = sum(_size(m) for m in part["messages"]) + 400
        full = batch.messages + len(part["messages"]) > options.batch_messages
        if batch.sessions and (full or batch.size + size > options.batch_bytes):
            batch = _flush(batch, uploader)
        if number > 0 and wire["replaces_earlier"]:
            batch = _flush(batch, uploader)
            batch.barrier = True
        batch.sessions.append(part)
        batch.files.add(path)
        batch.messages += len(part["messages"])
        batch.size += size
    return batch


def _flush(batch: Batch, uploader: Uploader) -> Batch:
    if batch.sessions:
        uploader.send(batch)
        return Batch()
    return batch


def tenant_of(client: Client) -> str:
    try:
        return str(client.get("/api/whoami").get("tenant") or "")
    except ApiError as exc:
        raise CliError(f"cannot ask the server who this key belongs to: {exc}") from None


# What `ctx sessions list --since` and `ctx changes --since` also read (the server's reader
# knows more words): "2 hours ago" and "2h" are that long back, "3 days ago", "yesterday" and
# "today" the start of that local day.
_AGO = re.compile(r"(\d{1,5})\s*(m|min|minute|h|hr|hour|d|day|w|week)s?(?:\s+ago)?")
_SECONDS = {"m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600}
_DAYS = {"d": 1, "day": 1, "w": 7, "week": 7}


def since_date(text: str, now: datetime | None = None) -> datetime:
    """`2026-03-01` or a full ISO timestamp (naive means UTC), `yesterday`, `today`,
    `3 days ago`, `2 weeks ago`, `2 hours ago`, `30m`."""
    words = text.strip().lower()
    now = (now or datetime.now(timezone.utc)).astimezone()  # the local clock's days
    ago = _AGO.fullmatch(words)
    if ago and ago[2] in _SECONDS:
        return now - timedelta(seconds=int(ago[1]) * _SECONDS[ago[2]])
    days = {"today": 0, "yesterday": 1}.get(words)
    if ago:
        days = int(ago[1]) * _DAYS[ago[2]]
    if days is not None:
        return datetime.combine(now.date() - timedelta(days=days), clock.min, now.tzinfo)
    try:
        moment = datetime.fromisoformat(words.upper().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"not a date: {text!r} (YYYY-MM-DD, an ISO time, 'yesterday', '3 days ago', '2h')"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
