"""ingest.windows: where windows start and what their text says (pure, literal data)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest import windows as w
from retrieval.chunking import SECTION_BREAK


@pytest.mark.parametrize(
    ("count", "size", "stride", "expected"),
    [
        (0, 8, 4, []),
        (3, 8, 4, [0]),
        (8, 8, 4, [0]),
        (10, 8, 4, [0, 2]),  # the tail window ends at the last message
        (12, 8, 4, [0, 4]),
        (14, 8, 4, [0, 4, 6]),
        (5, 2, 2, [0, 2, 3]),
        (4, 1, 1, [0, 1, 2, 3]),
    ],
)
def test_it_covers_every_message_and_ends_at_the_last(
    count: int, size: int, stride: int, expected: list[int]
) -> None:
    assert w.starts(count, size, stride) == expected


def test_it_spans_indexes_with_gaps() -> None:
    assert w.spans([0, 1, 5, 6, 9], 2, 2) == [(0, 1), (5, 6), (6, 9)]


def test_it_renders_roles_times_where_they_change_and_tool_calls() -> None:
    t = datetime(2026, 3, 1, 14, 2, tzinfo=UTC)
    lines = [
        w.Line(0, "user", "list files", t),
        w.Line(1, "assistant", "", t, ("Bash: ls",)),
        w.Line(2, "tool", "a.txt " * 100, t.replace(minute=3)),
        w.Line(3, "assistant", "x" * 50),
    ]
    text = w.render(lines, w.Limits(assistant_chars=20, tool_chars=12))
    assert text.split("\n\n") == [
        "[2026-03-01 14:02] user: list files",
        "assistant: [tools: Bash: ls]",
        "[2026-03-01 14:03] tool: a.txt a.txt […]",
        "assistant: " + "x" * 20 + " […]",
    ]
    assert w.bounds(lines) == (t, t.replace(minute=3))


def test_it_leaves_a_role_out_of_the_text_with_a_zero_cap() -> None:
    lines = [w.Line(0, "user", "question"), w.Line(1, "tool", "output")]
    assert w.render(lines, w.Limits(tool_chars=0)) == "user: question\n\ntool: "


def test_overlapping_windows_carry_the_same_text_for_the_messages_they_share() -> None:
    # Each stride's messages are a section rendered as if it began the window, so the
    # section two windows share is the same text in both (and is embedded once).
    t = datetime(2026, 3, 1, 14, 2, tzinfo=UTC)
    lines = [w.Line(i, "user" if i % 2 == 0 else "assistant", f"step {i}", t) for i in range(12)]
    lim = w.Limits(size=8, stride=4)
    first, second = (w.render(lines[a : b + 1], lim) for a, b in w.spans(range(12), 8, 4))
    assert first.split(SECTION_BREAK)[1] == second.split(SECTION_BREAK)[0]
    assert second.split(SECTION_BREAK)[0].startswith("[2026-03-01 14:02] user: step 4")
    assert len(first.split(SECTION_BREAK)) == 2
