"""Format drift: unknown record types and renamed fields are counted, known messages still parse,
and the report never carries message text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctx_cli.sessions.parsers import chatgpt, claude_ai, claude_code, codex, copilot, cursor, gemini
from tests.cli_sessions.conftest import FIXTURES

MAIN = "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a"


def _rewrite_lines(path: Path, change: Callable[[list[dict[str, Any]]], None]) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    change(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _no_text(examples: list[str], texts: list[str]) -> None:
    for example in examples:
        assert not any(t and t in example for t in texts), example


def test_it_counts_claude_code_drift_and_keeps_the_messages(
    fixture_home: Callable[[str], Path],
) -> None:
    path = fixture_home("claude_code") / ".claude/projects/-home-dev-shop-app" / f"{MAIN}.jsonl"

    def change(records: list[dict[str, Any]]) -> None:
        records[2]["timesstamp"] = records[2].pop("timestamp")  # a renamed field
        records.insert(5, {"type": "brand-new-record", "uuid": "x1", "data": {"k": 1}})
        records[3]["message"]["content"].append({"type": "hologram", "payload": "?"})

    _rewrite_lines(path, change)
    result = claude_code.read(path)
    drift = result.drift
    assert drift.unknown_types == {"brand-new-record": 1, "assistant.content.hologram": 1}
    assert drift.unknown_fields == {"user.timesstamp": 1}
    assert drift.missing_fields == {"user.timestamp": 1}
    messages = result.sessions[0].messages
    assert len(messages) == 13 and messages[0].timestamp is None
    assert messages[0].text == "Add a cart total to the checkout page"
    _no_text(drift.examples, [m.text for m in messages])
    assert any("brand-new-record" in e for e in drift.examples)


def test_it_counts_codex_drift(fixture_home: Callable[[str], Path]) -> None:
    path = next(p for p in codex.locate(fixture_home("codex"), "linux") if "2026" in p.name)

    def change(records: list[dict[str, Any]]) -> None:
        records.append({"timestamp": "2026-02-03T09:30:00Z", "type": "hyperlane", "payload": {}})
        records.append(
            {
                "timestamp": "2026-02-03T09:30:01Z",
                "type": "event_msg",
                "payload": {"type": "mind_meld"},
            }
        )
        records[5]["body"] = records[5].pop("payload")  # the first user_message event

    _rewrite_lines(path, change)
    result = codex.read(path)
    assert result.drift.unknown_types == {"hyperlane": 1, "event_msg:mind_meld": 1}
    assert result.drift.missing_fields == {"payload": 1}
    assert result.drift.unknown_fields == {"envelope.body": 1}
    texts = [m.text for m in result.sessions[0].messages]
    assert "Why is the build slow?" not in texts and "Skip the docs step by default" in texts


def test_it_counts_gemini_drift(fixture_home: Callable[[str], Path]) -> None:
    path = next(p for p in gemini.locate(fixture_home("gemini"), "linux") if p.suffix == ".json")
    data = json.loads(path.read_text())
    data["messages"].append(
        {"id": "p1", "timestamp": "2025-09-01T10:05:00Z", "type": "plan", "content": "x"}
    )
    data["messages"][0]["mood"] = "curious"
    path.write_text(json.dumps(data))
    result = gemini.read(path)
    assert result.drift.unknown_types == {"message:plan": 1}
    assert result.drift.unknown_fields == {"message.mood": 1}
    assert len(result.sessions[0].messages) == 5


def test_it_counts_copilot_drift(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("copilot")
    path = next(p for p in copilot.locate(home, "linux") if p.name.startswith("8c9d"))
    data = json.loads(path.read_text())
    data["requests"][0]["response"].append({"kind": "hologram", "value": "?"})
    data["requests"][1]["sentiment"] = 3
    path.write_text(json.dumps(data))
    result = copilot.read(path)
    assert result.drift.unknown_types == {"response:hologram": 1}
    assert result.drift.unknown_fields == {"request.sentiment": 1}
    assert len(result.sessions[0].messages) == 4


def test_it_counts_cursor_drift(tmp_path: Path) -> None:
    from tests.cli_sessions.conftest import build_vscdb

    spec = json.loads(
        (FIXTURES / "cursor/.config/Cursor/User/globalStorage/state.vscdb.json").read_text()
    )
    kv = spec["cursorDiskKV"]
    composer = kv["composerData:c0ffee01-0000-4000-8000-000000000001"]
    composer["fullConversationHeadersOnly"].append({"bubbleId": "b9", "type": 3})
    kv["bubbleId:c0ffee01-0000-4000-8000-000000000001:b9"] = {"bubbleId": "b9", "type": 3}
    kv["bubbleId:c0ffee01-0000-4000-8000-000000000001:b1"]["aura"] = "blue"
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    db = build_vscdb(tmp_path / "spec.json", tmp_path / "state.vscdb")
    result = cursor.read(db)
    assert result.drift.unknown_types == {"bubble:3": 1}
    assert result.drift.unknown_fields == {"bubble.aura": 1}
    assert sum(len(s.messages) for s in result.sessions) == 8


def test_it_counts_export_drift(tmp_path: Path) -> None:
    conversations = json.loads((FIXTURES / "chatgpt/conversations.json").read_text())
    conversations[1]["mapping"]["ans"]["message"]["content"]["content_type"] = "sonic_webpage"
    (tmp_path / "c.json").write_text(json.dumps(conversations))
    result = chatgpt.read(tmp_path / "c.json")
    assert result.drift.unknown_types == {"content:sonic_webpage": 1}
    assert result.sessions[1].messages[1].text == "It looks like a monstera."  # parts still read
    claude = json.loads((FIXTURES / "claude_ai/conversations.json").read_text())
    claude[0]["chat_messages"][1]["content"].append({"type": "artifact", "text": "x"})
    (tmp_path / "d.json").write_text(json.dumps(claude))
    drift = claude_ai.read(tmp_path / "d.json").drift
    assert drift.unknown_types == {"content:artifact": 1}
