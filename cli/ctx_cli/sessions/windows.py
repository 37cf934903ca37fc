"""The retrieval unit: overlapping windows of consecutive messages of one session.

Windows of `size` messages start every `stride` messages; when the last regular window stops
short of the end, one more window ends exactly at the last message, so the tail is always
covered. Each window's text carries every message's time and role:
`[2026-03-01 14:02] user: …`, with tool calls in brackets after the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ctx_cli.sessions.model import Message

SIZE = 8
STRIDE = 4
# 8 messages of at most 6,000 characters stay under the server's 50 KB block content limit.
MAX_MESSAGE_CHARS = 6_000


@dataclass
class Window:
    first_index: int
    last_index: int
    started_at: datetime | None
    ended_at: datetime | None
    text: str


def windows(
    messages: Sequence[Message],
    size: int = SIZE,
    stride: int = STRIDE,
    max_message_chars: int = MAX_MESSAGE_CHARS,
) -> list[Window]:
    """The windows over `messages` (one session, in order)."""
    if size < 1 or stride < 1:
        raise ValueError("size and stride must be positive")
    ordered = sorted(messages, key=lambda m: m.index)
    if not ordered:
        return []
    starts = list(range(0, max(len(ordered) - size, 0) + 1, stride))
    if starts[-1] + size < len(ordered):
        starts.append(len(ordered) - size)
    return [_window(ordered[s : s + size], max_message_chars) for s in starts]


def _window(chunk: Sequence[Message], limit: int) -> Window:
    stamps = [m.timestamp for m in chunk if m.timestamp is not None]
    return Window(
        first_index=chunk[0].index,
        last_index=chunk[-1].index,
        started_at=min(stamps) if stamps else None,
        ended_at=max(stamps) if stamps else None,
        text="\n\n".join(line(m, limit) for m in chunk),
    )


def line(message: Message, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`[2026-03-01 14:02] assistant: text [tools: Bash: ls]` for one message."""
    text = message.text
    if len(text) > limit:
        text = text[:limit] + " […]"
    if message.tool_calls:
        calls = "; ".join(message.tool_calls)
        text = f"{text} [tools: {calls}]" if text else f"[tools: {calls}]"
    stamp = f"[{message.timestamp:%Y-%m-%d %H:%M}] " if message.timestamp else ""
    return f"{stamp}{message.role}: {text}"
