from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ctx_cli.sessions.parsers import claude_code
from tests.cli_sessions.conftest import read_home, roles

MAIN = "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a"
OLD = "0a9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c"
AGENT = f"{MAIN}:agent-a1b2c3d4"


def test_it_finds_sessions_and_subagent_transcripts(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("claude_code")
    names = [p.name for p in claude_code.locate(home, "linux")]
    assert sorted(names) == sorted([f"{MAIN}.jsonl", f"{OLD}.jsonl", "agent-a1b2c3d4.jsonl"])
    assert claude_code.locate(home, "darwin") == claude_code.locate(home, "win32")


def test_it_honours_claude_config_dir(fixture_home: Callable[[str], Path], tmp_path: Path) -> None:
    home = fixture_home("claude_code")
    moved = tmp_path / "elsewhere"
    (home / ".claude").rename(moved)
    assert claude_code.locate(home, "linux") == []
    found = claude_code.locate(home, "linux", {"CLAUDE_CONFIG_DIR": str(moved)})
    assert len(found) == 3


def test_it_reads_a_session_as_the_user_saw_it(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("claude-code", fixture_home("claude_code"))[MAIN]
    assert session.project_root == "/home/dev/shop-app"
    assert session.git_branch == "feature/cart"
    assert session.title == "Cart total on checkout"  # custom title beats summaries
    assert session.started_at == datetime(2026, 3, 1, 14, 0, tzinfo=UTC)
    assert session.last_activity_at == datetime(2026, 3, 1, 14, 6, 10, tzinfo=UTC)
    texts = [m.text for m in session.messages]
    assert roles(session) == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "system",
        "user",
        "system",
        "system",
        "user",
        "assistant",
        "assistant",
    ]
    assert texts[0] == "Add a cart total to the checkout page"  # reminder cut out
    assert [m.index for m in session.messages] == list(range(13))


def test_it_merges_streamed_records_of_one_response(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("claude-code", fixture_home("claude_code"))[MAIN]
    first = session.messages[1]
    assert first.external_id == "msg_01"
    assert first.text == "I'll look at the checkout component first."  # thinking skipped
    assert first.tool_calls == [
        "Read: /home/dev/shop-app/src/checkout.tsx",
        "Bash: npm test -- checkout",
    ]
    assert session.messages[4].tool_calls == ["Edit: /home/dev/shop-app/src/checkout.tsx"]


def test_it_keeps_tool_results_named_and_deduplicated(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("claude-code", fixture_home("claude_code"))[MAIN]
    tools = [m.text for m in session.messages if m.role == "tool"]
    assert tools == [
        "[Read] export function Checkout() { return <Cart/>; }",
        "[Bash] Tests: 3 passed, 3 total",  # the repeated record (same uuid) once
        "[Edit] The file /home/dev/shop-app/src/checkout.tsx has been updated.",
    ]


def test_it_marks_system_text_that_the_user_did_not_type(
    fixture_home: Callable[[str], Path],
) -> None:
    messages = read_home("claude-code", fixture_home("claude_code"))[MAIN].messages
    caveat, command, output, summary = messages[6:10]
    assert caveat.role == "system" and "injected" in caveat.flags
    assert (command.role, command.text, command.flags) == ("user", "/cost", ["command"])
    assert (output.role, output.text) == ("system", "Total cost: $0.42")
    assert summary.role == "system" and summary.flags == ["compact_summary"]
    assert summary.text.startswith("This session is being continued")
    assert messages[10].text == "Now show the total with tax\n\n[image]"
    assert messages[11].flags == ["sidechain"] and messages[12].flags == []


def test_it_reads_a_subagent_transcript_as_its_own_marked_session(
    fixture_home: Callable[[str], Path],
) -> None:
    agent = read_home("claude-code", fixture_home("claude_code"))[AGENT]
    assert agent.is_sidechain and agent.parent_external_id == MAIN
    assert roles(agent) == ["user", "assistant", "tool", "assistant"]
    assert agent.messages[1].tool_calls == ["Grep: applyTax"]


def test_it_takes_the_project_from_cwd_not_the_folder_name(
    fixture_home: Callable[[str], Path],
) -> None:
    old = read_home("claude-code", fixture_home("claude_code"))[OLD]
    assert old.project_root == "/home/dev/my_app.v2"  # the folder says -home-dev-my-app-v2
    assert old.git_branch is None  # recorded as ""
    assert old.title == "Fix flaky login test"  # its summary's leaf is in the file
    assert roles(old) == ["user", "assistant", "user", "assistant"]


def test_it_ignores_summaries_of_other_sessions(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("claude_code")
    path = home / ".claude/projects/-home-dev-shop-app" / f"{MAIN}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if '"custom-title"' not in ln and '"leafUuid":"a6"' not in ln]
    path.write_text("".join(kept))
    session = claude_code.read(path).sessions[0]
    assert session.title is None  # "Unrelated session about billing" names another file's leaf
