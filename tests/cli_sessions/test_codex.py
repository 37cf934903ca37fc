from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ctx_cli.sessions.parsers import codex
from tests.cli_sessions.conftest import read_home, roles

CURRENT = "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b"
LEGACY = "5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f"
GONE = "c0ffee00-1111-4222-8333-444455556666"
OLDER_KEY = "d00dfeed-aaaa-4bbb-8ccc-ddddeeeeffff"


def test_it_finds_rollouts_and_history(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("codex")
    names = sorted(p.name for p in codex.locate(home, "darwin"))
    assert names[0] == "history.jsonl" and len(names) == 3
    moved = home / "custom"
    (home / ".codex").rename(moved)
    assert len(codex.locate(home, "linux", {"CODEX_HOME": str(moved)})) == 3


def test_it_reads_a_current_rollout(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("codex", fixture_home("codex"))[CURRENT]
    assert (session.project_root, session.git_branch, session.git_commit) == (
        "/home/dev/api",
        "main",
        "3f2a9c1",
    )
    assert session.meta["model"] == "gpt-x-codex"
    assert roles(session) == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    texts = [m.text for m in session.messages]
    # prompts from user_message events only: no injected <environment_context>, no duplicate
    assert [m.text for m in session.messages if m.role == "user"] == [
        "Why is the build slow?",
        "Skip the docs step by default",
    ]
    assert session.messages[1].tool_calls == ["shell: time make build"]
    assert texts[2] == "[shell] exit 0: real 2m3s"
    assert texts[3] == "Most time is in the docs step."  # agent_message event not repeated
    assert session.messages[4].flags == ["compact_summary"]
    assert texts[4] == "Summary: the build is slow because of the docs step."
    assert session.messages[6].tool_calls[0].startswith("apply_patch: *** Begin Patch")
    assert session.messages[0].timestamp == datetime(2026, 2, 3, 9, 15, 1, tzinfo=UTC)


def test_it_reads_a_legacy_rollout(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("codex", fixture_home("codex"))[LEGACY]
    assert (session.git_branch, session.git_commit) == ("rename", "aa11bb2")
    assert session.started_at == datetime(2025, 6, 10, 14, 0, tzinfo=UTC)
    assert [m.text for m in session.messages] == [
        "Rename the config loader to read_config",  # the <environment_context> one is skipped
        "",
        "[shell] exit 0: src/config.py:12:def load_config():",
        "Renamed load_config to read_config in 3 files.",
    ]
    assert session.messages[1].tool_calls == ["shell: rg load_config"]


def test_it_reads_history_only_for_conversations_without_a_rollout(
    fixture_home: Callable[[str], Path],
) -> None:
    home = fixture_home("codex")
    result = codex.read(home / ".codex" / "history.jsonl")
    by_id = {s.external_id: s for s in result.sessions}
    assert set(by_id) == {GONE, OLDER_KEY}  # CURRENT's prompt is in its rollout already
    assert [m.text for m in by_id[GONE].messages] == [
        "How do I rotate the signing key?",
        "And keep the old one valid for a day",
    ]
    assert by_id[GONE].messages[0].timestamp == datetime(2026, 1, 21, 12, 53, 20, tzinfo=UTC)


def test_it_does_not_repeat_history_when_the_file_is_trimmed(
    fixture_home: Callable[[str], Path],
) -> None:
    path = fixture_home("codex") / ".codex" / "history.jsonl"
    first = codex.read(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(
        "".join(lines[2:])
        + json.dumps({"session_id": GONE, "ts": 1769000500, "text": "thanks"})
        + "\n"
    )
    again = codex.read(path, first.cursor)
    assert again.rewritten
    assert [(s.external_id, [m.text for m in s.messages]) for s in again.sessions] == [
        (GONE, ["thanks"])
    ]
    assert again.sessions[0].messages[0].index == 2
