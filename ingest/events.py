"""The hook event log's fixed rules (pure: no Django): each kind's priority, an event's
identity for the duplicate check, and the text of an event block.

Priorities decide what goes first when something must: the per-session cap drops the lowest
priority (the oldest of it first), and the resume snapshot leaves out its lowest-priority lines
first (ingest.snapshot). What the user asked for and decided outlives what was merely looked at.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# kind -> priority (higher is kept longer). A fixed table, documented in docs/conversations.md.
PRIORITY: dict[str, int] = {
    "rule": 5,  # a standing instruction of the user's ("always…", "never…")
    "decision": 5,
    "task": 4,  # the task list (TodoWrite)
    "error": 4,
    "user_prompt": 3,
    "file_edit": 3,
    "git": 2,
    "subagent": 2,
    "file_read": 1,
    "compact": 1,  # the host compacted its context here
    "session": 1,  # the session started, resumed or was cleared
}
KINDS: tuple[str, ...] = tuple(PRIORITY)
RECENT = 5  # an event equal to one of the session's last five is a duplicate
ENDED = "ended"  # a `session` event's data key (the reason) when the session ended


def ends_session(kind: str, data: dict[str, Any]) -> bool:
    """The event says the session ended (Claude Code's SessionEnd): no later event will come
    to write the open event block, so it is written at once."""
    return kind == "session" and ENDED in data


def digest(kind: str, text: str, data: dict[str, Any]) -> str:
    """What makes two events the same (their time does not)."""
    payload = json.dumps([kind, text, data], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def page_of(seq: int, per_page: int) -> int:
    """The event block (0, 1, …) that event `seq` (1, 2, …) is written into."""
    return (seq - 1) // per_page


def page_range(page: int, per_page: int) -> tuple[int, int]:
    """The first and last sequence numbers of a page."""
    return page * per_page + 1, (page + 1) * per_page


@dataclass(frozen=True)
class Line:
    seq: int
    kind: str
    text: str
    at: datetime
    data: dict[str, Any] = field(default_factory=dict)


def render(lines: Sequence[Line]) -> str:
    """An event block's text: one line per event, its time where it differs from the line
    before (`[2026-03-01 14:02] file_edit: src/app.py`)."""
    out: list[str] = []
    previous = ""
    for line in lines:
        stamp = f"{line.at:%Y-%m-%d %H:%M}"
        head = f"[{stamp}] " if stamp != previous else ""
        previous = stamp
        out.append(f"{head}{line.kind}: {' '.join(line.text.split())}")
    return "\n".join(out)
