"""Cutting a session's messages into windows, the retrieval unit (pure: no Django).

The same rule as the CLI's `ctx_cli.sessions.windows` (the server cannot import the client, a
separate distribution): windows of `size` messages start every `stride` messages, and when the
last regular window stops short of the end one more window ends exactly at the last message,
so the tail is always covered. A window's text carries each message's role, and its time
wherever it differs from the line before (`[2026-03-01 14:02] user: …`), tool calls in brackets.

A window's text is cut into sections of `stride` messages (retrieval.chunking.SECTION_BREAK
between them), each rendered as if it began the window (its first line always has its time):
two overlapping windows then contain the very same text for the messages they share, and
those are embedded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from retrieval.chunking import SECTION_BREAK


@dataclass(frozen=True)
class Line:
    index: int
    role: str
    text: str
    timestamp: datetime | None = None
    tool_calls: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Limits:
    size: int = 8
    stride: int = 4
    message_chars: int = 2000  # of one user or system message's text
    assistant_chars: int = 2000  # of one assistant message's text
    tool_chars: int = 300  # of one tool result's text

    def cap(self, role: str) -> int:
        if role == "tool":
            return self.tool_chars
        return self.assistant_chars if role == "assistant" else self.message_chars


def starts(count: int, size: int, stride: int) -> list[int]:
    """The positions where windows start over `count` messages (none for no messages)."""
    if size < 1 or stride < 1:
        raise ValueError("size and stride must be positive")
    if count == 0:
        return []
    found = list(range(0, max(count - size, 0) + 1, stride))
    if found[-1] + size < count:
        found.append(count - size)
    return found


def spans(indexes: Sequence[int], size: int, stride: int) -> list[tuple[int, int]]:
    """(first index, last index) of each window over a session's ordered message indexes."""
    n = len(indexes)
    return [(indexes[s], indexes[min(s + size, n) - 1]) for s in starts(n, size, stride)]


def _cut(text: str, limit: int) -> str:
    if limit <= 0:
        return ""
    return text if len(text) <= limit else text[:limit].rstrip() + " […]"


def _stamp(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M}" if moment is not None else ""


def render(lines: Sequence[Line], limits: Limits) -> str:
    """The text of one window: its sections of `stride` messages."""
    step = max(limits.stride, 1)
    return SECTION_BREAK.join(
        _section(lines[start : start + step], limits) for start in range(0, len(lines), step)
    )


def _section(lines: Sequence[Line], limits: Limits) -> str:
    out: list[str] = []
    previous = ""
    for line in lines:
        text = _cut(line.text.strip(), limits.cap(line.role))
        if line.tool_calls:
            calls = "; ".join(line.tool_calls)
            text = f"{text} [tools: {calls}]" if text else f"[tools: {calls}]"
        stamp = _stamp(line.timestamp)
        head = f"[{stamp}] " if stamp and stamp != previous else ""
        previous = stamp or previous
        out.append(f"{head}{line.role}: {text}")
    return "\n\n".join(out)


def bounds(lines: Sequence[Line]) -> tuple[datetime | None, datetime | None]:
    """The earliest and the latest time of the window's messages."""
    stamps = [line.timestamp for line in lines if line.timestamp is not None]
    return (min(stamps), max(stamps)) if stamps else (None, None)
