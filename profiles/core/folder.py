"""The folder contract, both ways (README: "The folder contract").

    active.txt                 the active profile's slug
    <slug>.json                a profile's state (format ctx.profile/1), without history
    <slug>.md                  its prompt (render.render_prompt)
    <slug>.history.jsonl       one change per line, oldest first
    signals.jsonl              every signal, one per line
    inbox/<timestamp>-<uuid>.json   signals written by local tools, drained by sync
    inbox/rejected/            malformed inbox files, each with <name>.reason.txt beside it

Every file is UTF-8 and written atomically (a temporary file in the same directory, fsync,
rename), so a tool reading the folder never sees half a file. Inbox files are deleted only by
`acknowledge`, after the server has stored the signals they hold.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from profiles.core.profile import (
    PROFILE_FORMAT,
    Profile,
    ProfileError,
    change_from_dict,
    change_to_dict,
    profile_from_dict,
    profile_to_dict,
)
from profiles.core.render import render_prompt
from profiles.core.signals import Signal, SignalError, signal_from_dict

ACTIVE, SIGNALS, INBOX, REJECTED = "active.txt", "signals.jsonl", "inbox", "rejected"
MAX_INBOX_BYTES = 64 * 1024  # a signal is ≤ 6 KB of text; JSON escaping can multiply it
INBOX_NAME = re.compile(
    r"^(?P<stamp>\d{8}T\d{6}(?:\.\d{1,6})?Z|\d{10}(?:\d{3})?)-"
    r"(?P<uuid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$"
)
# Tools write `<name>.tmp` (or a dot-file) and rename: such files are not ready yet.
_IN_PROGRESS = re.compile(r"^\.|\.(?:tmp|part|swp)$")


class FolderError(ValueError):
    """The folder (or a path handed in) does not follow the contract; names the file."""


@dataclass(frozen=True)
class ProfileSet:
    """Everything the folder holds: the profiles, which one is active, the signals."""

    active: str
    profiles: tuple[Profile, ...]
    signals: tuple[Signal, ...] = ()

    def get(self, slug: str) -> Profile | None:
        return next((p for p in self.profiles if p.slug == slug), None)


@dataclass(frozen=True)
class InboxItem:
    path: Path
    signal: Signal


@dataclass(frozen=True)
class Rejected:
    path: Path  # where the file is now (inbox/rejected/…)
    reason: str


# --- export ---------------------------------------------------------------------------------


def export(profile_set: ProfileSet, folder: Path) -> list[Path]:
    """Write the folder's files for `profile_set`; returns the paths written. Profile files
    of profiles no longer in the set are removed (a tool must not read a deleted profile)."""
    files = render_files(profile_set)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / INBOX).mkdir(exist_ok=True)
    written = [write_atomic(folder / name, text) for name, text in files.items()]
    _remove_stale(folder, {p.slug for p in profile_set.profiles})
    return written


def render_files(profile_set: ProfileSet) -> dict[str, str]:
    """Every file of the folder for `profile_set` (name → UTF-8 text), in the order `export`
    writes them: what a client that cannot import this module writes on its side."""
    slugs = [p.slug for p in profile_set.profiles]
    if len(set(slugs)) != len(slugs):
        raise FolderError("two profiles share a slug")
    if profile_set.profiles and profile_set.active not in slugs:
        raise FolderError(f"{ACTIVE}: {profile_set.active!r} is not one of the profiles")
    files = {ACTIVE: profile_set.active + "\n"}
    for profile in profile_set.profiles:
        files.update(profile_files(profile))
    files[SIGNALS] = "".join(_json_line(s.to_dict()) for s in profile_set.signals)
    return files


def profile_files(profile: Profile) -> dict[str, str]:
    """`<slug>.json` (no history), `<slug>.md` and `<slug>.history.jsonl`."""
    state = json.dumps(profile_to_dict(profile), ensure_ascii=False, indent=2) + "\n"
    return {
        f"{profile.slug}.json": state,
        f"{profile.slug}.md": render_prompt(profile),
        f"{profile.slug}.history.jsonl": "".join(
            _json_line(change_to_dict(c)) for c in profile.history
        ),
    }


def _json_line(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_atomic(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 so that readers see the old file or the new one, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _remove_stale(folder: Path, keep: set[str]) -> None:
    for path in folder.glob("*.json"):
        if path.stem in keep or not _is_profile_file(path):
            continue
        for suffix in (".json", ".md", ".history.jsonl"):
            (folder / f"{path.stem}{suffix}").unlink(missing_ok=True)


def _is_profile_file(path: Path) -> bool:
    """Only our own files are ever removed: a JSON object in the profile format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == PROFILE_FORMAT


# --- import ---------------------------------------------------------------------------------


def import_folder(folder: Path) -> ProfileSet:
    """The profiles (with their histories), the active slug and the signals of a folder."""
    if not folder.is_dir():
        raise FolderError(f"{folder} is not a directory")
    names = [p.name for p in folder.glob("*.json")] + [
        n for n in (ACTIVE, SIGNALS) if (folder / n).is_file()
    ]
    names += [p.name for p in folder.glob("*.history.jsonl")]
    files = {}
    for name in names:
        try:
            files[name] = (folder / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            if name.endswith(".json"):
                continue  # not ours (and unreadable): a foreign file is never an error
            raise FolderError(f"{name}: cannot be read ({exc})") from exc
    return import_files(files)


def import_files(files: Mapping[str, str]) -> ProfileSet:
    """`import_folder` on the folder's files given as name → text (a server receiving a
    folder from a client): `*.json` in the profile format, their `.history.jsonl`,
    `active.txt` and `signals.jsonl`; any other JSON file is not ours and is ignored."""
    profiles = tuple(
        _read_profile(name, files) for name in sorted(files) if _is_profile_json(name, files[name])
    )
    active = files.get(ACTIVE, "").strip()
    if not active and profiles:
        active = profiles[0].slug
    return ProfileSet(active, profiles, _read_signals(files.get(SIGNALS, "")))


def _is_profile_json(name: str, text: str) -> bool:
    if "/" in name or not name.endswith(".json"):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("format") == PROFILE_FORMAT


def _read_profile(name: str, files: Mapping[str, str]) -> Profile:
    stem = name.removesuffix(".json")
    try:
        data = json.loads(files[name])
        history_text = files.get(f"{stem}.history.jsonl", "")
        history = tuple(change_from_dict(d) for d in _jsonl(history_text))
        profile = profile_from_dict(data, history)
    # ProfileError and SignalError included; AttributeError: a field of the wrong JSON type
    # (`"metrics": null`) met by a `.get` or `.items`; OverflowError: a number no int holds
    # (`"version": Infinity`, which Python's JSON reads). Hypothesis found both.
    except (AttributeError, KeyError, OverflowError, TypeError, ValueError) as exc:
        raise FolderError(f"{name}: {exc}") from exc
    if profile.slug != stem:
        raise FolderError(f"{name}: holds the profile {profile.slug!r}")
    return profile


def _jsonl(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _read_signals(text: str) -> tuple[Signal, ...]:
    try:
        return tuple(signal_from_dict(item) for item in _jsonl(text))
    except (OverflowError, ValueError, SignalError) as exc:
        raise FolderError(f"{SIGNALS}: {exc}") from exc


# --- the inbox ------------------------------------------------------------------------------


def read_inbox(folder: Path) -> tuple[list[InboxItem], list[Rejected]]:
    """Signals waiting in `inbox/`, oldest first, and the files rejected on the way.

    A malformed file is moved to `inbox/rejected/` with `<name>.reason.txt` beside it and
    never stops the others. Accepted files stay where they are until `acknowledge`."""
    inbox = folder / INBOX
    if not inbox.is_dir():
        return [], []
    accepted: list[InboxItem] = []
    rejected: list[Rejected] = []
    for path in sorted(inbox.iterdir(), key=_inbox_order):
        if path.name == REJECTED or not path.is_file() or _IN_PROGRESS.search(path.name):
            continue
        try:
            accepted.append(InboxItem(path, _read_inbox_file(path)))
        except (SignalError, ValueError, OSError) as exc:  # FolderError is a ValueError
            rejected.append(_reject_safely(path, str(exc)))
    return accepted, rejected


def _inbox_order(path: Path) -> tuple[datetime, str]:
    return inbox_order(path.name)


def _reject_safely(path: Path, reason: str) -> Rejected:
    """`reject`, or the reason alone when the file cannot be moved: one bad file (even an
    unmovable one) must not stop the rest of the inbox."""
    try:
        return reject(path, reason)
    except OSError as exc:
        return Rejected(path, f"{reason} (not moved: {exc.strerror or exc})")


def _read_inbox_file(path: Path) -> Signal:
    if path.stat().st_size > MAX_INBOX_BYTES:
        check_inbox_name(path.name)
        raise FolderError(f"larger than {MAX_INBOX_BYTES} bytes")
    return parse_inbox_file(path.name, path.read_bytes())


def check_inbox_name(name: str) -> re.Match[str]:
    found = INBOX_NAME.match(name)
    if found is None:
        raise FolderError("the name is not <timestamp>-<uuid>.json")
    return found


def parse_inbox_file(name: str, data: bytes) -> Signal:
    """The signal an inbox file holds, given its name and bytes (a server receiving the file
    from a client runs exactly this); FolderError or SignalError with the reason."""
    found = check_inbox_name(name)
    if len(data) > MAX_INBOX_BYTES:
        raise FolderError(f"larger than {MAX_INBOX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FolderError("not UTF-8") from exc
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise FolderError(f"not JSON ({exc})") from exc
    return signal_from_dict(parsed, default_id=found["uuid"], now=stamp_time(found["stamp"]))


_LAST = datetime.max.replace(tzinfo=UTC)  # where a name without a real time sorts


def inbox_order(name: str) -> tuple[datetime, str]:
    """Oldest first by the time in the name (both stamp forms compare), then by name."""
    found = INBOX_NAME.match(name)
    try:
        return (stamp_time(found["stamp"]) if found else _LAST), name
    except FolderError:  # an impossible time (month 13): last, and rejected when read
        return _LAST, name


def stamp_time(stamp: str) -> datetime:
    """The time an inbox file name carries (compact ISO in UTC, or epoch s / ms)."""
    if stamp.isdigit():
        seconds = int(stamp) / (1000 if len(stamp) == 13 else 1)
        return datetime.fromtimestamp(seconds, UTC)
    fmt = "%Y%m%dT%H%M%S.%fZ" if "." in stamp else "%Y%m%dT%H%M%SZ"
    try:
        return datetime.strptime(stamp, fmt).replace(tzinfo=UTC)
    except ValueError:
        raise FolderError(f"the name's time {stamp} is not a real time") from None


def reject(path: Path, reason: str) -> Rejected:
    """Move `path` to inbox/rejected/ (never over an earlier one) with its reason beside."""
    target_dir = path.parent / REJECTED
    target_dir.mkdir(exist_ok=True)
    target = target_dir / path.name
    n = 1
    while target.exists():
        target = target_dir / f"{path.stem}.{n}{path.suffix}"
        n += 1
    os.replace(path, target)
    write_atomic(target_dir / f"{target.name}.reason.txt", reason.strip() + "\n")
    return Rejected(target, reason)


def acknowledge(items: Iterable[InboxItem | Path]) -> list[Path]:
    """Delete inbox files whose signals the server has stored; returns the deleted paths.

    Refuses anything that is not an accepted inbox file (a `<timestamp>-<uuid>.json`
    directly inside an `inbox/` directory): this call deletes files, so it deletes only
    those it was made for."""
    paths = [item.path if isinstance(item, InboxItem) else Path(item) for item in items]
    for path in paths:
        if path.parent.name != INBOX or not INBOX_NAME.match(path.name):
            raise FolderError(f"{path} is not an inbox file")
    deleted = []
    for path in paths:
        if path.exists():
            path.unlink()
            deleted.append(path)
    return deleted


__all__ = [
    "MAX_INBOX_BYTES",
    "FolderError",
    "InboxItem",
    "ProfileError",
    "ProfileSet",
    "Rejected",
    "acknowledge",
    "check_inbox_name",
    "export",
    "import_files",
    "import_folder",
    "inbox_order",
    "parse_inbox_file",
    "profile_files",
    "read_inbox",
    "render_files",
]
