"""Bad input: broken lines, wrong encodings, damaged exports, huge texts, random bytes. The
parsers never crash and never drop a whole file for one bad part."""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_cli.sessions import parsers
from ctx_cli.sessions.parsers import chatgpt, claude_code, copilot, cursor, gemini
from ctx_cli.sessions.text import MAX_SUMMARY, MAX_TEXT, MAX_TOOL_TEXT
from tests.cli_sessions.conftest import FIXTURES

S = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"


def _line(uuid: str, content: Any, kind: str = "user", **extra: Any) -> bytes:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg_{uuid}"
    record = {
        "type": kind,
        "uuid": uuid,
        "sessionId": S,
        "cwd": "/w",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": message,
        **extra,
    }
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def test_it_skips_invalid_lines_and_reads_the_rest(tmp_path: Path) -> None:
    path = tmp_path / f"{S}.jsonl"
    path.write_bytes(
        _line("a", "first")
        + b"{not json\n"
        + b"[1, 2]\n"
        + b"\n"
        + b"\x00\x01garbage\n"
        + b"[" * 100_000
        + b"\n"
        + _line("b", "second")
    )
    result = claude_code.read(path)
    assert [m.text for m in result.sessions[0].messages] == ["first", "second"]
    assert result.drift.unreadable_lines == 4 and not result.problems


def test_it_decodes_wrong_encodings_with_replacement_and_counts_them(tmp_path: Path) -> None:
    path = tmp_path / f"{S}.jsonl"
    latin1 = _line("a", "café au lait").replace("café".encode(), "café".encode("latin-1"))
    path.write_bytes(b"\xef\xbb\xbf" + _line("z", "after a BOM") + latin1)
    result = claude_code.read(path)
    texts = [m.text for m in result.sessions[0].messages]
    assert texts == ["after a BOM", "caf\ufffd au lait"]
    assert result.drift.bad_encoding == 1


def test_it_reads_a_utf16_chat_document(tmp_path: Path) -> None:
    source = next(p for p in (FIXTURES / "copilot").rglob("*.json") if p.name.startswith("2b3c"))
    path = tmp_path / "chatSessions" / source.name
    path.parent.mkdir()
    path.write_bytes(source.read_text().encode("utf-16"))
    assert copilot.detect(path)
    assert len(copilot.read(path).sessions[0].messages) == 2


def test_it_bounds_texts_tool_results_and_summaries(tmp_path: Path) -> None:
    path = tmp_path / f"{S}.jsonl"
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "x" * 5000}}
    result_block = {"type": "tool_result", "tool_use_id": "t1", "content": "y" * 50_000}
    path.write_bytes(
        _line("a", "z" * (3 * MAX_TEXT))
        + _line("b", [use], "assistant")
        + _line("c", [result_block])
    )
    prompt, call, output = claude_code.read(path).sessions[0].messages
    assert len(prompt.text) < MAX_TEXT + 100 and prompt.text.endswith("truncated by ctx]")
    assert "truncated" in prompt.flags
    assert len(call.tool_calls[0]) == MAX_SUMMARY
    assert len(output.text) < MAX_TOOL_TEXT + 100 and "truncated" in output.flags


def test_it_keeps_the_conversations_before_a_break_in_an_export(tmp_path: Path) -> None:
    text = (FIXTURES / "chatgpt" / "conversations.json").read_text()
    cut = text.index('"title": "Plant photo"')
    path = tmp_path / "conversations.json"
    path.write_text(text[:cut])
    result = chatgpt.read(path)
    assert [s.title for s in result.sessions] == ["Powers of two"]
    assert len(result.problems) == 1 and "breaks off after 1 elements" in result.problems[0]
    path.write_text(text)
    again = chatgpt.read(path, result.cursor)  # once whole, the rest comes, nothing twice
    assert [s.title for s in again.sessions] == ["Plant photo"]


def test_it_reports_files_it_cannot_read(tmp_path: Path) -> None:
    missing = parsers.read_as("claude-code", tmp_path / "nope.jsonl")
    assert missing.problems == [f"{tmp_path / 'nope.jsonl'} does not exist"]
    (tmp_path / "empty.jsonl").write_bytes(b"")
    empty = claude_code.read(tmp_path / "empty.jsonl")
    assert empty.sessions == [] and not empty.problems
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04 broken")
    assert chatgpt.read(tmp_path / "bad.zip").problems
    (tmp_path / "state.vscdb").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    assert cursor.read(tmp_path / "state.vscdb").problems
    (tmp_path / "x.json").write_text("{]")
    problem = gemini.read(tmp_path / "x.json").problems[0]
    assert problem.endswith(
        "x.json is not valid JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1))"
    )


def test_it_refuses_a_file_given_under_the_wrong_tool() -> None:
    claude_file = next((FIXTURES / "claude_code").rglob("0a9e*.jsonl"))
    result = parsers.read_as("codex", claude_file)
    assert result.sessions == []
    assert result.problems == [
        f"{claude_file} is not a codex log (it looks like a claude-code file); nothing was read"
    ]
    assert parsers.identify(claude_file) == ["claude-code"]
    for tool, folder in (("gemini", "gemini"), ("copilot", "copilot"), ("codex", "codex")):
        for path in (FIXTURES / folder).rglob("*.json*"):
            if path.name not in ("projects.json", "workspace.json", "state.vscdb.json"):
                assert parsers.identify(path) == [tool], path


# --- property tests: nothing a file holds makes a parser raise ------------------------------

NAMES = [
    ("claude-code", f"{S}.jsonl"),
    ("codex", "rollout-2026-01-01T00-00-00-x.jsonl"),
    ("codex", "history.jsonl"),
    ("gemini", "session-x.json"),
    ("gemini", "session-x.jsonl"),
    ("copilot", "s.json"),
    ("copilot", "s.jsonl"),
    ("copilot", "events.jsonl"),
    ("chatgpt", "conversations.json"),
    ("claude-ai", "conversations.json"),
    ("cursor", "state.vscdb"),
    ("chatgpt", "export.zip"),
]
KEYS = st.sampled_from(
    [
        "type",
        "uuid",
        "sessionId",
        "timestamp",
        "message",
        "content",
        "payload",
        "role",
        "id",
        "requests",
        "kind",
        "k",
        "v",
        "data",
        "text",
        "mapping",
        "chat_messages",
        "$rewindTo",
        "$set",
        "toolCalls",
        "current_node",
        "parent",
        "author",
        "parts",
        "record_type",
        "ts",
        "session_id",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(
        [
            "user",
            "assistant",
            "gemini",
            "session_meta",
            "response_item",
            "event_msg",
            "message",
            "function_call",
            "user.message",
            "2026-01-01T00:00:00Z",
        ]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=20,
)


def _read_everything(payload: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for tool, name in NAMES:
            path = Path(folder) / tool / name
            path.parent.mkdir(exist_ok=True)
            if name.endswith(".zip"):
                with zipfile.ZipFile(path, "w") as archive:
                    archive.writestr("conversations.json", payload)
            else:
                path.write_bytes(payload)
            result = parsers.get(tool).read(path)  # must not raise
            # ... nor lean on the drivers' safety net, which would hide a parser bug
            assert result.drift.errors == 0, (tool, result.drift.examples)
            again = parsers.get(tool).read(path, result.cursor)
            assert again.message_count == 0 or again.problems
            parsers.read_as(tool, path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_it_survives_random_bytes(payload: bytes) -> None:
    _read_everything(payload)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(KEYS, VALUES, max_size=8), max_size=6), st.booleans())
def test_it_survives_random_json_records(records: list[dict[str, Any]], as_array: bool) -> None:
    if as_array:
        payload = json.dumps(records).encode()
    else:
        payload = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    _read_everything(payload)
