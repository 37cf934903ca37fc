from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from ctx_cli.sessions.parsers import chatgpt
from tests.cli_sessions.conftest import FIXTURES

POWERS = "67a0b1c2-d3e4-8f50-a1b2-c3d4e5f6a7b8"
PLANT = "5f0e1d2c-3b4a-4958-8776-a5b4c3d2e1f0"


def export_zip(tmp_path: Path, conversations: object | None = None) -> Path:
    """An export ZIP as ChatGPT ships it (conversations.json next to user.json)."""
    path = tmp_path / "chatgpt-export.zip"
    body = (
        (FIXTURES / "chatgpt" / "conversations.json").read_text()
        if conversations is None
        else json.dumps(conversations)
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", body)
        archive.write(FIXTURES / "chatgpt" / "user.json", "user.json")
    return path


def test_it_reads_the_zip_and_the_bare_json_alike(tmp_path: Path) -> None:
    from_zip = chatgpt.read(export_zip(tmp_path))
    bare = chatgpt.read(FIXTURES / "chatgpt" / "conversations.json")
    assert [s.external_id for s in from_zip.sessions] == [POWERS, PLANT]
    assert [[m.content_hash for m in s.messages] for s in from_zip.sessions] == [
        [m.content_hash for m in s.messages] for s in bare.sessions
    ]
    assert chatgpt.locate(tmp_path, "linux") == []  # exports are given by hand


def test_it_follows_the_current_branch_only(tmp_path: Path) -> None:
    session = chatgpt.read(export_zip(tmp_path)).sessions[0]
    assert session.title == "Powers of two"
    assert [(m.role, m.text) for m in session.messages] == [
        (
            "user",
            "What is 2**64 exactly?",
        ),  # the hidden system node and custom instructions skipped
        ("assistant", ""),  # "About 1.8e19." was the abandoned branch
        ("tool", "[python] 18446744073709551616"),
        ("assistant", "2**64 = 18446744073709551616."),
    ]
    assert session.messages[1].tool_calls == ["python: print(2**64)"]
    assert session.messages[0].timestamp == datetime(2025, 12, 29, 9, 20, 10, 500000, tzinfo=UTC)
    assert session.project_root is None and session.meta["model"] == "gpt-x"


def test_it_keeps_images_as_markers(tmp_path: Path) -> None:
    plant = chatgpt.read(export_zip(tmp_path)).sessions[1]
    assert plant.messages[0].text == "[image]\n\nWhat plant is this?"


def test_it_reads_a_newer_export_for_new_and_changed_conversations_only(tmp_path: Path) -> None:
    conversations = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text())
    first = chatgpt.read(export_zip(tmp_path, conversations))
    plant = conversations[1]
    plant["mapping"]["ans"]["children"] = ["q2"]
    plant["mapping"]["q2"] = {
        "id": "q2",
        "parent": "ans",
        "children": [],
        "message": {
            "id": "q2",
            "author": {"role": "user"},
            "create_time": 1760000100.0,
            "content": {"content_type": "text", "parts": ["Is it toxic to cats?"]},
        },
    }
    plant["current_node"], plant["update_time"] = "q2", 1760000100.0
    (tmp_path / "chatgpt-export.zip").unlink()
    again = chatgpt.read(export_zip(tmp_path, conversations), first.cursor)
    assert [(s.external_id, [(m.index, m.text) for m in s.messages]) for s in again.sessions] == [
        (PLANT, [(2, "Is it toxic to cats?")])
    ]


def test_it_refuses_a_claude_ai_export(tmp_path: Path) -> None:
    other = FIXTURES / "claude_ai" / "conversations.json"
    assert not chatgpt.detect(other)
    result = chatgpt.read(other)
    assert result.sessions == []
    assert "is not a ChatGPT export (it looks like a claude-ai export)" in result.problems[0]


def test_it_hands_conversations_over_one_by_one_when_asked(tmp_path: Path) -> None:
    seen: list[str] = []
    result = chatgpt.read(export_zip(tmp_path), None, lambda s: seen.append(s.title or ""))
    assert seen == ["Powers of two", "Plant photo"] and result.sessions == []
    assert chatgpt.read(export_zip(tmp_path), result.cursor).sessions == []  # cursor still moved
