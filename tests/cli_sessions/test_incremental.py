"""Cursors: a re-read returns only what is new, whatever happened to the file meanwhile."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctx_cli.sessions import parsers
from ctx_cli.sessions.model import Cursor
from ctx_cli.sessions.parsers import claude_code, codex, gemini

TOOLS = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
    "copilot": "copilot",
}
MAIN = "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a"


def _claude(home: Path) -> Path:
    return home / ".claude/projects/-home-dev-shop-app" / f"{MAIN}.jsonl"


def _record(uuid: str, text: str, kind: str = "user", message_id: str | None = None) -> str:
    message: dict[str, Any] = {"role": kind, "content": text}
    if message_id:
        message = {
            "id": message_id,
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        }
    record = {
        "type": kind,
        "uuid": uuid,
        "sessionId": MAIN,
        "cwd": "/home/dev/shop-app",
        "timestamp": "2026-03-01T15:00:00.000Z",
        "message": message,
    }
    return json.dumps(record) + "\n"


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_it_returns_nothing_new_on_an_unchanged_re_read(
    tool: str, fixture_home: Callable[[str], Path]
) -> None:
    home = fixture_home(TOOLS[tool])
    module = parsers.get(tool)
    for path in module.locate(home, "linux"):
        first = module.read(path)
        assert first.message_count > 0 or tool == "cursor", path
        stored = Cursor.from_dict(json.loads(json.dumps(first.cursor.to_dict())))
        again = module.read(path, stored)
        assert again.sessions == [] and not again.problems, path
        path.touch()  # a new mtime with the same bytes is still nothing new
        assert module.read(path, again.cursor).sessions == [], path


def test_it_returns_only_appended_lines(fixture_home: Callable[[str], Path]) -> None:
    path = _claude(fixture_home("claude_code"))
    first = claude_code.read(path)
    with path.open("a") as f:
        f.write(_record("n1", "And a discount field"))
        f.write(_record("n2", "Discount added.", "assistant", "msg_new"))
    again = claude_code.read(path, first.cursor)
    (session,) = again.sessions
    assert [(m.index, m.text) for m in session.messages] == [
        (13, "And a discount field"),
        (14, "Discount added."),
    ]
    assert (
        session.title == "Cart total on checkout" and session.project_root == "/home/dev/shop-app"
    )
    assert not again.rewritten


def test_it_leaves_a_truncated_last_line_for_the_next_read(
    fixture_home: Callable[[str], Path],
) -> None:
    path = _claude(fixture_home("claude_code"))
    first = claude_code.read(path)
    whole = _record("n1", "half written")
    with path.open("a") as f:
        f.write(whole[:40])
    partial = claude_code.read(path, first.cursor)
    assert partial.sessions == [] and partial.drift.total == 0
    assert partial.cursor.offset == first.cursor.offset  # the cursor stays before the line
    with path.open("a") as f:
        f.write(whole[40:])
    done = claude_code.read(path, partial.cursor)
    assert [m.text for m in done.sessions[0].messages] == ["half written"]
    assert claude_code.read(path, done.cursor).sessions == []


def test_it_revises_an_answer_whose_blocks_arrive_across_reads(
    fixture_home: Callable[[str], Path],
) -> None:
    path = _claude(fixture_home("claude_code"))
    with path.open("a") as f:
        f.write(_record("n1", "Part one.", "assistant", "msg_stream"))
    first = claude_code.read(path)
    with path.open("a") as f:
        f.write(_record("n2", "Part two.", "assistant", "msg_stream"))
    again = claude_code.read(path, first.cursor)
    (revised,) = again.sessions[0].messages
    assert (revised.index, revised.text, revised.flags) == (
        13,
        "Part one.\n\nPart two.",
        ["revised"],
    )
    assert claude_code.read(path, again.cursor).sessions == []


def test_it_detects_a_same_size_rewrite_and_returns_no_duplicates(
    fixture_home: Callable[[str], Path],
) -> None:
    path = _claude(fixture_home("claude_code"))
    first = claude_code.read(path)
    hashes = [m.content_hash for m in first.sessions[0].messages]
    # Same records, same size, different bytes: one line's keys reordered in place.
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = (
        json.dumps(dict(reversed(list(json.loads(lines[2]).items()))), separators=(",", ":")) + "\n"
    )
    path.write_text("".join(lines))
    assert path.stat().st_size == first.cursor.size
    again = claude_code.read(path, first.cursor)
    assert again.rewritten and again.sessions == []  # read again, nothing returned twice
    # An edited message: the session comes back whole, marked, unchanged messages same hashes.
    path.write_text(
        path.read_text().replace("Now show the total with tax", "Now show the total with VAT")
    )
    edited = claude_code.read(path, again.cursor)
    (session,) = edited.sessions
    assert edited.rewritten and session.replaces_earlier
    new_hashes = [m.content_hash for m in session.messages]
    assert new_hashes[:10] == hashes[:10] and new_hashes[10] != hashes[10]
    assert new_hashes[11:] == hashes[11:]


def test_it_re_reads_a_truncated_file_from_the_start(fixture_home: Callable[[str], Path]) -> None:
    path = _claude(fixture_home("claude_code"))
    first = claude_code.read(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:5]))
    again = claude_code.read(path, first.cursor)
    assert again.rewritten and again.sessions[0].replaces_earlier
    assert len(again.sessions[0].messages) == 2


def test_it_reads_lines_appended_while_reading_exactly_once(
    fixture_home: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _claude(fixture_home("claude_code"))
    original = claude_code.ClaudeHandler.record
    appended: list[bool] = []

    def record(self: Any, record: dict[str, Any], line: Any) -> None:
        if not appended:
            appended.append(True)
            with path.open("a") as f:  # the tool writes while we read
                f.write(_record("w1", "written during the read") + _record("w2", "half")[:30])
        original(self, record, line)

    monkeypatch.setattr(claude_code.ClaudeHandler, "record", record)
    first = claude_code.read(path)
    monkeypatch.setattr(claude_code.ClaudeHandler, "record", original)
    with path.open("a") as f:
        f.write(_record("w2", "half")[30:])
    second = claude_code.read(path, first.cursor)
    texts = [m.text for r in (first, second) for s in r.sessions for m in s.messages]
    assert texts.count("written during the read") == 1 and texts.count("half") == 1


def test_it_re_reads_a_gemini_chat_rewound_into_an_earlier_read(
    fixture_home: Callable[[str], Path],
) -> None:
    path = next(
        p
        for p in gemini.locate(fixture_home("gemini"), "linux")
        if p.name.startswith("session-2026")
    )
    first = gemini.read(path)
    with path.open("a") as f:
        f.write(json.dumps({"$rewindTo": "m6"}) + "\n")
        f.write(
            json.dumps(
                {
                    "id": "m9",
                    "timestamp": "2026-01-20T08:40:00.000Z",
                    "type": "user",
                    "content": "Use ICU instead",
                }
            )
            + "\n"
        )
    again = gemini.read(path, first.cursor)
    (session,) = again.sessions
    assert session.replaces_earlier
    assert [m.text for m in session.messages][-1] == "Use ICU instead"
    assert "Fix it with NFD normalisation instead" not in [m.text for m in session.messages]


def test_it_continues_codex_numbering_and_tool_steps(fixture_home: Callable[[str], Path]) -> None:
    path = next(p for p in codex.locate(fixture_home("codex"), "linux") if "2026" in p.name)
    first = codex.read(path)
    call: dict[str, Any] = {
        "timestamp": "2026-02-03T09:30:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command":["make"]}',
            "call_id": "c9",
        },
    }
    with path.open("a") as f:
        f.write(json.dumps(call) + "\n")
    second = codex.read(path, first.cursor)
    assert [(m.index, m.tool_calls) for m in second.sessions[0].messages] == [(9, ["shell: make"])]
    call["payload"] = {
        **call["payload"],
        "arguments": '{"command":["make","test"]}',
        "call_id": "c10",
    }
    with path.open("a") as f:
        f.write(json.dumps(call) + "\n")
    third = codex.read(path, second.cursor)
    (step,) = third.sessions[0].messages  # consecutive calls are one step, revised
    assert (step.index, step.tool_calls, step.flags) == (
        9,
        ["shell: make", "shell: make test"],
        ["revised"],
    )
