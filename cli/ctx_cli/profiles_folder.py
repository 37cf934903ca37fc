"""The client's side of the profiles folder contract (docs/profiles.md).

The server renders the folder's files and validates inbox files (one implementation, in its
profiles core); this side only moves bytes: it writes the files the server sends atomically,
sends inbox files, deletes them once the server stored them and moves rejected ones to
`inbox/rejected/` with the server's reason beside them.

    active.txt, <slug>.json, <slug>.md, <slug>.history.jsonl, signals.jsonl, inbox/
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

INBOX, REJECTED = "inbox", "rejected"
PROFILE_FORMAT = "ctx.profile/1"
MAX_INBOX_BYTES = 64 * 1024  # the server refuses larger files; checked here before sending
FILES_PER_REQUEST = 100
# Files being written by a tool (`<name>.tmp`, a dot-file) are not ready yet.
IN_PROGRESS = re.compile(r"^\.|\.(?:tmp|part|swp)$")
PROFILE_FILES = (".json", ".md", ".history.jsonl")


# --- writing the folder -------------------------------------------------------------------


def write_atomic(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of it."""
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix="." + path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, str(path))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _safe_name(name: str) -> bool:
    """A file name the server may ask us to write: plain, inside the folder."""
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")


def write_folder(folder: Path, files: dict[str, str], slugs: list[str]) -> list[str]:
    """Write the server's files, create inbox/, and remove the files of profiles that are gone
    (only files in the profile format: a foreign *.json is never touched). Returns the names."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / INBOX).mkdir(exist_ok=True)
    written = []
    for name, text in files.items():
        if not _safe_name(name):
            raise ValueError(f"the server sent an unsafe file name: {name!r}")
        write_atomic(folder / name, text)
        written.append(name)
    _remove_stale(folder, set(slugs))
    return written


def _remove_stale(folder: Path, keep: set[str]) -> None:
    for path in folder.glob("*.json"):
        stem = path.name[: -len(".json")]
        if stem in keep or not _is_profile_file(path):
            continue
        for suffix in PROFILE_FILES:
            target = folder / (stem + suffix)
            if target.exists():
                target.unlink()


def _is_profile_file(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == PROFILE_FORMAT


def read_folder(folder: Path) -> dict[str, str]:
    """The files an import sends: profile JSON and history, active.txt, signals.jsonl."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a directory")
    wanted = sorted(folder.glob("*.json")) + sorted(folder.glob("*.history.jsonl"))
    wanted += [folder / n for n in ("active.txt", "signals.jsonl") if (folder / n).is_file()]
    files = {}
    for path in wanted:
        try:
            files[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            if path.name.endswith(".history.jsonl") or path.name in ("active.txt",):
                raise
            continue  # an unreadable foreign file is not ours to send
    return files


# --- the inbox ----------------------------------------------------------------------------


class Outcome(NamedTuple):
    name: str
    action: str  # stored | duplicate | rejected
    reason: str = ""


def inbox_files(folder: Path) -> list[Path]:
    """The files waiting in inbox/, by name (the server orders them by the time in it)."""
    inbox = folder / INBOX
    if not inbox.is_dir():
        return []
    return sorted(
        p
        for p in inbox.iterdir()
        if p.is_file() and p.name != REJECTED and not IN_PROGRESS.search(p.name)
    )


def reject(path: Path, reason: str) -> Path:
    """Move `path` to inbox/rejected/ (never over an earlier one), its reason beside it."""
    target_dir = path.parent / REJECTED
    target_dir.mkdir(exist_ok=True)
    target = target_dir / path.name
    n = 1
    while target.exists():
        target = target_dir / f"{path.stem}.{n}{path.suffix}"
        n += 1
    os.replace(str(path), str(target))
    write_atomic(target_dir / (target.name + ".reason.txt"), reason.strip() + "\n")
    return target


def _readable(path: Path) -> tuple[str | None, str]:
    """(text, "") or (None, why it cannot be sent): the checks that need the bytes."""
    try:
        if path.stat().st_size > MAX_INBOX_BYTES:
            return None, f"larger than {MAX_INBOX_BYTES} bytes"
        return path.read_bytes().decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"


def _batches(items: list[tuple[Path, str]]) -> Iterator[list[tuple[Path, str]]]:
    for start in range(0, len(items), FILES_PER_REQUEST):
        yield items[start : start + FILES_PER_REQUEST]


Send = Callable[[list[dict[str, str]]], list[dict[str, Any]]]


def drain(folder: Path, send: Send) -> list[Outcome]:
    """Send every inbox file; delete those the server stored (or had stored before), move the
    ones it rejected. A file is deleted only after the server's answer names it; a failed
    request leaves every file of its batch in place for the next sync."""
    outcomes: list[Outcome] = []
    ready: list[tuple[Path, str]] = []
    for path in inbox_files(folder):
        text, why = _readable(path)
        if text is None:
            _settle(path, "rejected", why, outcomes)
        else:
            ready.append((path, text))
    for batch in _batches(ready):
        answers = send([{"name": path.name, "text": text} for path, text in batch])
        by_name = {a.get("name"): a for a in answers}
        for path, _ in batch:
            answer = by_name.get(path.name)
            if answer is not None:
                _settle(path, str(answer.get("action")), str(answer.get("reason", "")), outcomes)
    return outcomes


def _settle(path: Path, action: str, reason: str, outcomes: list[Outcome]) -> None:
    if action in ("stored", "duplicate"):
        path.unlink()
    elif action == "rejected":
        try:
            reject(path, reason)
        except OSError as exc:  # one unmovable file must not stop the others
            reason = f"{reason} (not moved: {exc.strerror or exc})"
    else:
        return
    outcomes.append(Outcome(path.name, action, reason))
