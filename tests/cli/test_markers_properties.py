"""The `[PERSIST:category:title]` marker parser and the transcript reader behind `ctx persist`
and the Stop hook, on any text an agent can write and any bytes a transcript can hold: never
an exception, every section found whole, nothing invented."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_cli.hooks import Persist, last_assistant_text, parse_markers

CHECKS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
# Marker parts: no ':' or ']' in the category, no ']' in the title, neither on two lines.
CATEGORY = st.text(st.characters(blacklist_characters=":]\n\r"), min_size=1, max_size=20)
TITLE = st.text(st.characters(blacklist_characters="]\n\r"), min_size=1, max_size=40)
CONTENT = st.text(max_size=200).filter(lambda t: "[PERSIST:" not in t)


@CHECKS
@given(st.text(max_size=400))
def test_any_text_parses_to_whole_sections(text: str) -> None:
    for found in parse_markers(text):
        assert found.category and found.title and found.content
        assert found.content == found.content.strip()
        assert "[PERSIST:" in text


@CHECKS
@given(st.lists(st.tuples(CATEGORY, TITLE, CONTENT), max_size=4), st.text(max_size=40))
def test_the_sections_written_are_the_sections_read(
    sections: list[tuple[str, str, str]], preamble: str
) -> None:
    preamble = preamble.replace("[PERSIST:", "")
    text = preamble + "".join(f"[PERSIST:{c}:{t}]\n{body}\n" for c, t, body in sections)
    expected = [
        Persist(c.strip(), t.strip(), body.strip())
        for c, t, body in sections
        if c.strip() and t.strip() and body.strip()
    ]
    assert parse_markers(text) == expected


@CHECKS
@given(st.binary(max_size=600))
def test_any_transcript_bytes_give_a_text(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(data)
        assert isinstance(last_assistant_text(path), str)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.just("assistant"),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["type", "message", "content", "id", "text"]), inner, max_size=4
        )
    ),
    max_leaves=10,
)


@CHECKS
@given(st.lists(JSON, max_size=6))
def test_any_transcript_records_give_a_text(records: list[object]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in records))
        assert isinstance(last_assistant_text(path), str)
