"""The signal shape and its bounds: every violation names its field."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from profiles.core.signals import (
    MAX_CONTEXT_BYTES,
    MAX_NOTE_CHARS,
    Signal,
    SignalError,
    signal_from_dict,
)

NOW = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)


def make(**fields: Any) -> Signal:
    base: dict[str, Any] = {"id": "s1", "type": "dislike", "created_at": NOW}
    return Signal(**{**base, **fields})


def test_it_accepts_a_signal_at_every_bound() -> None:
    signal = make(
        note="n" * MAX_NOTE_CHARS,
        context="c" * MAX_CONTEXT_BYTES,
        tags=tuple("t" * 50 for _ in range(20)),
        source="claude-code",
        session="sess-1",
    )
    assert len(signal.note) == 2000 and len(signal.tags) == 20


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"note": "n" * (MAX_NOTE_CHARS + 1)}, "note"),
        ({"context": "c" * (MAX_CONTEXT_BYTES + 1)}, "context"),
        ({"context": "ü" * (MAX_CONTEXT_BYTES // 2 + 1)}, "context"),  # bytes, not characters
        ({"tags": tuple(f"t{i}" for i in range(21))}, "tags"),
        ({"tags": ("ok", "x" * 51)}, "tags[1]"),
        ({"tags": ("ok", "  ")}, "tags[1]"),
        ({"type": "love"}, "type"),
        ({"id": ""}, "id"),
        ({"created_at": datetime(2025, 3, 12)}, "created_at"),
        ({"type": "tag", "tags": ()}, "tags"),
        ({"type": "note", "note": "   "}, "note"),
    ],
)
def test_it_names_the_field_out_of_bounds(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(SignalError) as err:
        make(**fields)
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: ")


def test_it_reads_a_signal_from_json_and_back() -> None:
    signal = make(note="too long", tags=("verbose",), context="A long answer.", source="cli")
    assert signal_from_dict(signal.to_dict()) == signal


def test_it_fills_a_missing_id_and_time_from_the_defaults_given() -> None:
    signal = signal_from_dict({"type": "like"}, default_id="abc", now=NOW)
    assert (signal.id, signal.created_at) == ("abc", NOW)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ([], "signal"),
        ({"type": "like", "id": "x", "colour": "red"}, "colour"),
        ({"type": "like", "id": "x", "tags": "a,b"}, "tags"),
        ({"type": "like", "id": "x", "created_at": "yesterday"}, "created_at"),
        ({"type": "like", "id": "x", "note": 5}, "note"),
    ],
)
def test_it_refuses_malformed_json(data: Any, field: str) -> None:
    with pytest.raises(SignalError) as err:
        signal_from_dict(data)
    assert err.value.field == field
