"""Reading files safely: JSONL from a cursor, whole-file JSON, streamed JSON arrays, ZIPs.

Nothing here holds more than one copy of a file's text: JSONL is read line by line, a big JSON
array is decoded one element at a time from a fixed-size window.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ctx_cli.sessions.model import Cursor, Drift

CHUNK = 1 << 20
HEAD_BYTES = 64 * 1024  # what `detect()` looks at
MAX_WHOLE_FILE = 512 * 1024 * 1024  # a single JSON document larger than this is refused


class FileProblem(Exception):
    """A file that cannot be read at all; the message is shown to the user as is."""


@dataclass
class Line:
    number: int  # 1-based line number in the file
    start: int
    end: int
    record: dict[str, Any]

    @property
    def where(self) -> str:
        return f"line {self.number}: "


@dataclass
class Checkpoint:
    offset: int
    lines: int
    hasher: Any


def decode_json_bytes(raw: bytes, drift: Drift, where: str) -> Any:
    """json.loads on bytes; invalid UTF-8 is decoded with replacement and counted.

    Raises ValueError (JSONDecodeError) or RecursionError for text that is not JSON.
    """
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        drift.encoding(where)
        return json.loads(raw.decode("utf-8", "replace").lstrip("\ufeff"))


class JsonlFile:
    """One pass over a JSONL file from a cursor.

    `prepare()` decides where to start: `unchanged` (same size and mtime: nothing to read),
    `resumed` (the bytes before the cursor's offset hash as before: read on from there),
    `fresh` (no cursor) or `rewritten` (changed in place: read again from the start).
    Only complete lines are consumed; a last line without its newline that is not yet valid
    JSON is left for the next read.
    """

    def __init__(self, path: Path, cursor: Cursor, drift: Drift) -> None:
        self.path = path
        self.cursor = cursor
        self.drift = drift
        self.status = "fresh"
        self.size = -1
        self.mtime_ns = -1
        self._file: IO[bytes] | None = None
        self._hasher: Any = hashlib.sha256()
        self._pos = 0
        self._lines = 0

    def prepare(self) -> str:
        self.size, self.mtime_ns = file_fingerprint(self.path)
        c = self.cursor
        if c.size >= 0 and c.size == self.size and c.mtime_ns == self.mtime_ns:
            self.status = "unchanged"  # not even opened: an unchanged history costs one stat
            return self.status
        try:
            self._file = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise FileProblem(f"cannot open {self.path}: {exc.strerror or exc}") from exc
        if c.size >= 0 and c.offset > 0:
            self.status = (
                "resumed" if self._prefix_matches(c.offset, c.prefix_hash) else "rewritten"
            )
        elif c.size >= 0:
            self.status = "rewritten" if c.sessions else "fresh"
        if self.status == "resumed":
            self._pos, self._lines = c.offset, c.lines
        else:
            self.restart()
        return self.status

    def _prefix_matches(self, offset: int, expected: str) -> bool:
        if self.size < offset or self._file is None:
            return False
        self._file.seek(0)
        hasher = hashlib.sha256()
        remaining = offset
        while remaining > 0:
            block = self._file.read(min(CHUNK, remaining))
            if not block:
                return False
            hasher.update(block)
            remaining -= len(block)
        if hasher.hexdigest() != expected:
            return False
        self._hasher = hasher
        return True

    def restart(self) -> None:
        """Read again from the first byte (a full re-read)."""
        self._pos, self._lines, self._hasher = 0, 0, hashlib.sha256()
        if self._file is not None:
            self._file.seek(0)

    def seek(self, checkpoint: Checkpoint) -> None:
        self._pos, self._lines, self._hasher = (
            checkpoint.offset,
            checkpoint.lines,
            checkpoint.hasher.copy(),
        )

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self._pos, self._lines, self._hasher.copy())

    def __iter__(self) -> Iterator[Line]:
        f = self._file
        if f is None:
            return
        f.seek(self._pos)
        for raw in f:
            complete = raw.endswith(b"\n")
            record = self._parse(raw, complete)
            if record is _INCOMPLETE:
                return  # the writer is still writing this line: leave it for the next read
            if isinstance(record, dict):
                # Yielded before the position moves on, so that `checkpoint()` during the
                # record's handling is the start of its line.
                yield Line(self._lines + 1, self._pos, self._pos + len(raw), record)
            self._pos += len(raw)
            self._lines += 1
            self._hasher.update(raw)

    def _parse(self, raw: bytes, complete: bool) -> Any:
        stripped = raw.strip()
        if not stripped:
            return _INCOMPLETE if not complete else None
        where = f"line {self._lines + 1}: "
        if self._pos == 0 and stripped.startswith(codecs.BOM_UTF8):
            stripped = stripped[len(codecs.BOM_UTF8) :]
        try:
            record = decode_json_bytes(stripped, self.drift, where)
        except (ValueError, RecursionError):
            if not complete:
                return _INCOMPLETE
            self.drift.unreadable(where, f"invalid JSON ({len(raw)} bytes)")
            return None
        if not isinstance(record, dict):
            self.drift.unreadable(where, f"a JSON {type(record).__name__}, not an object")
            return None
        return record

    def cursor_at(self, checkpoint: Checkpoint | None) -> Cursor:
        """The new cursor: at `checkpoint` when given, else after the last consumed line."""
        offset, lines, hasher = (
            (checkpoint.offset, checkpoint.lines, checkpoint.hasher)
            if checkpoint is not None
            else (self._pos, self._lines, self._hasher)
        )
        return Cursor(
            tool=self.cursor.tool,
            size=self.size,
            mtime_ns=self.mtime_ns,
            offset=offset,
            prefix_hash=hasher.hexdigest(),
            lines=lines,
        )

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


_INCOMPLETE: Any = object()


def file_fingerprint(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise FileProblem(f"cannot open {path}: {exc.strerror or exc}") from exc
    return st.st_size, st.st_mtime_ns


def file_digest(path: Path) -> str:
    hasher = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(CHUNK), b""):
                hasher.update(block)
    except OSError as exc:
        raise FileProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    return hasher.hexdigest()


def whole_file_unchanged(path: Path, cursor: Cursor) -> tuple[bool, Cursor]:
    """Whether a whole-file format needs no parsing, and the cursor to carry on with.

    Same size and mtime: unchanged without reading. Otherwise the content hash decides, so
    a touched but identical file is not parsed again.
    """
    size, mtime = file_fingerprint(path)
    if cursor.size == size and cursor.mtime_ns == mtime and cursor.file_hash:
        return True, cursor
    digest = file_digest(path)
    new = Cursor(
        tool=cursor.tool,
        size=size,
        mtime_ns=mtime,
        file_hash=digest,
        sessions=cursor.sessions,
        extra=cursor.extra,
    )
    return digest == cursor.file_hash, new


def read_head(path: Path, limit: int = HEAD_BYTES) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return b""


def head_text(path: Path, limit: int = HEAD_BYTES) -> str:
    raw = read_head(path, limit)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8", "replace").lstrip("\ufeff")


def first_records(path: Path, count: int = 20) -> list[dict[str, Any]]:
    """The first parseable JSON-object lines of a JSONL file (for `detect()`)."""
    records: list[dict[str, Any]] = []
    for raw in read_head(path).split(b"\n")[:200]:
        try:
            value = json.loads(raw.decode("utf-8", "replace").lstrip("\ufeff"))
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            records.append(value)
            if len(records) >= count:
                break
    return records


def load_json(path: Path, drift: Drift) -> Any:
    """A whole JSON document (UTF-8 with or without BOM, or UTF-16 with BOM)."""
    size, _ = file_fingerprint(path)
    if size > MAX_WHOLE_FILE:
        raise FileProblem(f"{path} is {size // 2**20} MiB, more than a session file can be")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise FileProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    text = _decode_document(raw, drift)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise FileProblem(f"{path} is not valid JSON ({_short(exc)})") from exc


def _decode_document(raw: bytes, drift: Drift) -> str:
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16", "replace")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        drift.encoding("")
        return raw.decode("utf-8", "replace").lstrip("\ufeff")


def _short(exc: BaseException) -> str:
    return str(exc).split("\n")[0][:120]


# --- streamed JSON arrays -------------------------------------------------------------------


class _TextFeed:
    """UTF-8 text from a binary stream, chunk by chunk, invalid bytes replaced and counted."""

    def __init__(self, stream: IO[bytes], drift: Drift) -> None:
        self.stream = stream
        self.drift = drift
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.eof = False
        self.first = True

    def read(self, size: int) -> str:
        raw = self.stream.read(size)
        final = not raw
        self.eof = final
        try:
            text = self.decoder.decode(raw, final)
        except UnicodeDecodeError:
            pending, _ = self.decoder.getstate()
            self.drift.encoding("")
            self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text = self.decoder.decode(pending + raw, final)
        if self.first:
            self.first = False
            text = text.lstrip("\ufeff")
        return text


def iter_json_array(stream: IO[bytes], drift: Drift, chunk: int = CHUNK) -> Iterator[Any]:
    """The elements of a top-level JSON array, decoded one at a time.

    Raises FileProblem when the document is not an array or breaks off; elements decoded
    before the break have been yielded already.
    """
    feed = _TextFeed(stream, drift)
    decoder = json.JSONDecoder()
    buf, pos = feed.read(chunk), 0
    pos = _skip(buf, pos, " \t\r\n")
    if pos >= len(buf) or buf[pos] != "[":
        raise FileProblem("the document is not a JSON array")
    pos += 1
    count = 0
    while True:
        buf, pos = _compact(buf, pos)
        pos = _skip(buf, pos, " \t\r\n,")
        if pos >= len(buf):
            if feed.eof:
                raise FileProblem(f"the JSON array breaks off after {count} elements")
            buf += feed.read(chunk)
            continue
        if buf[pos] == "]":
            return
        try:
            value, end = decoder.raw_decode(buf, pos)
        except json.JSONDecodeError as exc:
            incomplete = _maybe_incomplete(exc, buf)
            if feed.eof and incomplete:
                raise FileProblem(f"the JSON array breaks off after {count} elements") from exc
            if not incomplete:
                raise FileProblem(f"invalid JSON after {count} elements ({_short(exc)})") from exc
            # Read at least as much again as is buffered: a large element costs linear time.
            buf += feed.read(max(chunk, len(buf) - pos))
            continue
        except RecursionError as exc:
            raise FileProblem(f"element {count + 1} is nested too deeply") from exc
        count += 1
        pos = end
        yield value


def _skip(buf: str, pos: int, chars: str) -> int:
    while pos < len(buf) and buf[pos] in chars:
        pos += 1
    return pos


def _compact(buf: str, pos: int) -> tuple[str, int]:
    if pos > CHUNK:
        return buf[pos:], 0
    return buf, pos


def _maybe_incomplete(exc: json.JSONDecodeError, buf: str) -> bool:
    """Whether decoding failed because the buffer ends inside the element."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(buf) - 8


# --- exports: a ZIP or a bare conversations.json ----------------------------------------------


def zip_member(archive: zipfile.ZipFile, name: str) -> str | None:
    """The archive's member called `name`, at the top or in one folder."""
    candidates = [
        n for n in archive.namelist() if n == name or (n.endswith("/" + name) and n.count("/") == 1)
    ]
    return sorted(candidates, key=len)[0] if candidates else None


@contextmanager
def open_export(path: Path, member: str = "conversations.json") -> Iterator[IO[bytes]]:
    """A binary stream of an export's conversations: the file itself, or the ZIP's member."""
    if zipfile.is_zipfile(path):
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise FileProblem(f"{path} is not a readable ZIP ({exc})") from exc
        with archive:
            name = zip_member(archive, member)
            if name is None:
                raise FileProblem(f"{path} has no {member}")
            with archive.open(name) as stream:
                yield stream
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise FileProblem(f"cannot open {path}: {exc.strerror or exc}") from exc
    with stream:
        yield stream


def export_head(path: Path, member: str = "conversations.json", limit: int = HEAD_BYTES) -> str:
    """The first characters of an export's conversations (for `detect()`), or ""."""
    try:
        with open_export(path, member) as stream:
            return stream.read(limit).decode("utf-8", "replace").lstrip("\ufeff")
    except (FileProblem, OSError, zipfile.BadZipFile, RuntimeError, EOFError):
        return ""


def zip_names(path: Path) -> list[str]:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return []
