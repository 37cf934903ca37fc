from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ctx_cli.sessions.model import Message
from ctx_cli.sessions.windows import line, windows

T0 = datetime(2026, 3, 1, 14, 2, tzinfo=UTC)


def _messages(count: int) -> list[Message]:
    return [
        Message(
            index=i,
            role="user" if i % 2 == 0 else "assistant",
            text=f"m{i}",
            timestamp=T0 + timedelta(minutes=i),
        )
        for i in range(count)
    ]


def test_it_slides_eight_messages_by_four_and_covers_the_tail() -> None:
    spans = [(w.first_index, w.last_index) for w in windows(_messages(18))]
    assert spans == [(0, 7), (4, 11), (8, 15), (10, 17)]


def test_it_makes_one_window_of_a_short_session() -> None:
    assert [(w.first_index, w.last_index) for w in windows(_messages(3))] == [(0, 2)]
    assert [(w.first_index, w.last_index) for w in windows(_messages(8))] == [(0, 7)]
    assert windows([]) == []


def test_it_adds_no_extra_window_when_the_stride_lands_on_the_end() -> None:
    spans = [(w.first_index, w.last_index) for w in windows(_messages(12))]
    assert spans == [(0, 7), (4, 11)]


def test_it_writes_times_roles_and_tool_calls_into_the_text() -> None:
    msgs = [
        Message(index=0, role="user", text="list files", timestamp=T0),
        Message(
            index=1,
            role="assistant",
            text="",
            tool_calls=["Bash: ls -la"],
            timestamp=T0 + timedelta(seconds=5),
        ),
        Message(index=2, role="tool", text="[Bash] a.txt", timestamp=None),
    ]
    (window,) = windows(msgs)
    assert window.text == (
        "[2026-03-01 14:02] user: list files\n\n"
        "[2026-03-01 14:02] assistant: [tools: Bash: ls -la]\n\n"
        "tool: [Bash] a.txt"
    )
    assert (window.started_at, window.ended_at) == (T0, T0 + timedelta(seconds=5))


def test_it_orders_by_index_and_bounds_each_message() -> None:
    msgs = list(reversed(_messages(2)))
    assert windows(msgs)[0].first_index == 0
    long = Message(index=0, role="user", text="x" * 50, timestamp=None)
    assert line(long, limit=10) == "user: " + "x" * 10 + " […]"
    with pytest.raises(ValueError):
        windows(msgs, stride=0)
