"""The resume snapshot's pure builder, on literal events (ingest.snapshot)."""

from __future__ import annotations

from datetime import UTC, datetime

from ingest import events, snapshot
from ingest.events import Line
from ingest.models import EVENT_KINDS

AT = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
HEAD = snapshot.Head(tool="claude-code", external_id="s1", project="shop", events=4)


def test_the_models_kinds_are_the_priority_tables() -> None:
    assert EVENT_KINDS == events.KINDS


def test_it_drops_the_lowest_priority_then_the_oldest_first() -> None:
    a, b = "src/" + "x" * 80 + "/a.py", "src/" + "x" * 80 + "/b.py"  # each longer than the note
    lines = [
        Line(1, "file_read", a, AT, {"path": a}),
        Line(2, "file_read", b, AT, {"path": b}),
        Line(3, "decision", "keep the column", AT),
        Line(4, "git", "git push", AT),
    ]
    whole = snapshot.build(HEAD, lines, 10_000)
    assert (whole.lines, whole.omitted) == (4, 0)
    less = snapshot.build(HEAD, lines, len(whole.markdown.encode()) - 1)
    assert a not in less.markdown and b in less.markdown
    assert less.omitted == 1 and "_1 lower-priority lines left out to fit._" in less.markdown
    assert snapshot.build(HEAD, lines, 300).markdown == snapshot.build(HEAD, lines, 300).markdown


def test_it_cuts_at_a_character_boundary_when_even_the_header_is_too_long() -> None:
    head = snapshot.Head(tool="claude-code", external_id="é" * 200)
    text = snapshot.build(head, [], 256).markdown
    assert len(text.encode()) <= 256 and "\ufffd" not in text
