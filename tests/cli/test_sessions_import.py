"""`ctx sessions import` as a subprocess against a live server: the fixture trees of the seven
tools, incremental re-runs, the hook, and the bad input of the issue."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ingest.models import Message, Session
from tests.cli.conftest import Cli
from tests.cli_sessions.conftest import make_home

TOOLS = {
    "claude-code": (3, 21),  # sessions, messages in the fixture tree
    "codex": (4, 16),
    "gemini": (3, 12),
    "cursor": (3, 10),
    "copilot": (6, 16),
    "chatgpt": (2, 6),
    "claude-ai": (2, 5),
}


def home(tmp_path: Path, tool: str) -> Path:
    return make_home(tool.replace("-", "_"), tmp_path / tool)


def claude_file(root: Path) -> Path:
    return next((root / ".claude" / "projects" / "-home-dev-shop-app").glob("*.jsonl"))


def test_it_imports_the_fixture_trees_of_all_seven_tools_then_only_what_is_new(
    cli: Cli, tmp_path: Path
) -> None:
    homes = {tool: home(tmp_path, tool) for tool in TOOLS}
    for tool, root in homes.items():
        run = cli("sessions", "import", "--tool", tool, "--path", str(root))
        assert run.returncode == 0, run.stderr
        counts = run.json()["tools"][tool]
        assert counts["sessions"] == {"new": TOOLS[tool][0]}, (tool, counts)
        assert counts["messages"] == {"new": TOOLS[tool][1]}, (tool, counts)
    assert Session.objects.count() == sum(s for s, _ in TOOLS.values())
    assert Message.objects.count() == sum(m for _, m in TOOLS.values())
    for tool, root in homes.items():
        again = cli("sessions", "import", "--tool", tool, "--path", str(root)).json()
        counts = again["tools"][tool]
        assert counts["files_unchanged"] == counts["files"] and counts["messages"] == {}, tool
    line = {
        "type": "user",
        "uuid": "u-new",
        "parentUuid": None,
        "sessionId": "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a",
        "timestamp": "2026-03-02T10:00:00.000Z",
        "cwd": "/home/dev/shop-app",
        "message": {"role": "user", "content": "one more question about the cart"},
    }
    with claude_file(homes["claude-code"]).open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    third = cli("sessions", "import", "--tool", "claude-code", "--path", str(homes["claude-code"]))
    assert third.json()["tools"]["claude-code"]["messages"] == {"new": 1}
    assert Message.objects.filter(text="one more question about the cart").count() == 1


def test_it_keeps_its_cursors_in_the_state_directory_not_the_scanned_folder(
    cli: Cli, tmp_path: Path
) -> None:
    root = home(tmp_path, "codex")
    before = sorted(p for p in root.rglob("*"))
    cli("sessions", "import", "--tool", "codex", "--path", str(root))
    assert sorted(p for p in root.rglob("*")) == before
    (state,) = (cli.home / ".local" / "state" / "ctx" / "sessions").glob("*.json")
    data = json.loads(state.read_text())
    assert data["tenant"] == "acme" and len(data["files"]) == 3
    assert oct(state.stat().st_mode & 0o777) == "0o600"


def test_it_prints_a_summary_and_a_bar_on_a_terminal(cli: Cli, tmp_path: Path) -> None:
    root = home(tmp_path, "gemini")
    run = cli.tty("sessions", "import", "--tool", "gemini", "--path", str(root))
    assert run.returncode == 0, run.stderr
    assert "gemini: 3 files (0 unchanged); sessions: 3 new; messages: 12 new" in run.stdout


def test_it_sends_nothing_on_a_dry_run(cli: Cli, tmp_path: Path) -> None:
    root = home(tmp_path, "cursor")
    run = cli("sessions", "import", "--tool", "cursor", "--path", str(root), "--dry-run")
    assert run.returncode == 0, run.stderr
    assert run.json()["tools"]["cursor"]["messages"] == {"would send": 10}
    assert not Session.objects.exists()
    real = cli("sessions", "import", "--tool", "cursor", "--path", str(root)).json()
    assert real["tools"]["cursor"]["messages"] == {"new": 10}  # the dry run saved no cursor


def test_it_refuses_an_export_given_under_the_wrong_tool(cli: Cli, tmp_path: Path) -> None:
    export = home(tmp_path, "claude-ai") / "conversations.json"
    run = cli("sessions", "import", "--tool", "chatgpt", "--path", str(export))
    assert run.returncode == 0, run.stderr
    (skipped,) = run.json()["skipped"]
    assert "is not a chatgpt log (it looks like a claude-ai file)" in skipped["reason"]
    assert not Session.objects.exists()


def test_it_skips_a_locked_database_with_a_reason_and_imports_the_rest(
    cli: Cli, tmp_path: Path
) -> None:
    root = home(tmp_path, "cursor")
    (db,) = (root / ".config" / "Cursor" / "User" / "globalStorage").glob("state.vscdb")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        run = cli("sessions", "import", "--tool", "cursor", "--path", str(root))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.returncode == 0, run.stderr
    summary = run.json()
    assert any("locked" in s["reason"] for s in summary["skipped"]), summary["skipped"]
    again = cli("sessions", "import", "--tool", "cursor", "--path", str(root)).json()
    assert again["tools"]["cursor"]["messages"].get("new", 0) > 0  # read once it is free


def test_it_leaves_a_half_written_last_line_for_the_next_run(cli: Cli, tmp_path: Path) -> None:
    root = home(tmp_path, "claude-code")
    path = claude_file(root)
    full = path.read_bytes()
    last = full.rindex(b'{"type":"assistant"')
    path.write_bytes(full[: last + 60])  # an answer's record is still being written
    first = cli("sessions", "import", "--tool", "claude-code", "--path", str(root)).json()
    got = first["tools"]["claude-code"]["messages"]["new"]
    path.write_bytes(full)
    second = cli("sessions", "import", "--tool", "claude-code", "--path", str(root)).json()
    assert got + second["tools"]["claude-code"]["messages"]["new"] == 21
    assert Message.objects.count() == 21


def test_it_reports_bad_encoding_as_drift_and_imports_the_messages(
    cli: Cli, tmp_path: Path
) -> None:
    root = home(tmp_path, "codex")
    rollout = next((root / ".codex" / "sessions").rglob("rollout-2026-*.jsonl"))
    text = rollout.read_bytes().replace(b"the build slow", b"the build \xff\xfe slow", 1)
    rollout.write_bytes(text)
    run = cli("sessions", "import", "--tool", "codex", "--path", str(root))
    summary = run.json()
    assert summary["tools"]["codex"]["messages"]["new"] == 16
    (drift,) = summary["drift"]
    assert drift["bad_encoding"] >= 1 and drift["path"] == str(rollout.resolve())


def test_it_imports_only_sessions_active_since_a_date_and_saves_no_cursor(
    cli: Cli, tmp_path: Path
) -> None:
    root = home(tmp_path, "codex")
    run = cli("sessions", "import", "--tool", "codex", "--path", str(root), "--since", "2026-01-01")
    summary = run.json()
    assert summary["tools"]["codex"]["sessions"]["skipped"] >= 1
    stamps = [s.last_activity_at for s in Session.objects.all()]
    assert stamps and all(t is not None and t.year >= 2026 for t in stamps)
    full = cli("sessions", "import", "--tool", "codex", "--path", str(root)).json()
    assert full["tools"]["codex"]["sessions"].get("new", 0) >= 1  # the older ones, now


def test_it_reads_since_in_words_and_refuses_what_it_cannot_read(cli: Cli, tmp_path: Path) -> None:
    root = home(tmp_path, "codex")  # sessions of 2025 and early 2026
    recent = cli(
        "sessions", "import", "--tool", "codex", "--path", str(root), "--since", "2 days ago"
    )
    assert recent.json()["tools"]["codex"]["sessions"]["skipped"] >= 2
    assert not Session.objects.exists()
    bad = cli("sessions", "import", "--tool", "codex", "--path", str(root), "--since", "whenever")
    assert bad.returncode == 2 and "'yesterday', '3 days ago'" in bad.stderr
    assert not Session.objects.exists()


def test_it_halves_a_batch_the_server_finds_too_large(
    cli: Cli, tmp_path: Path, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_SESSION_IMPORT_MAX_MESSAGES": 3}
    root = home(tmp_path, "claude-code")
    run = cli("sessions", "import", "--tool", "claude-code", "--path", str(root))
    assert run.returncode == 0, run.stderr
    assert run.json()["tools"]["claude-code"]["messages"] == {"new": 21}


def test_it_says_when_nothing_is_found(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty-home"
    empty.mkdir()
    run = cli.tty("sessions", "import", "--path", str(empty))
    # An empty home is no error (the tools may not have written yet); what --path takes is said.
    assert run.returncode == 0 and f"no session logs found in {empty}" in run.stdout
    assert "--path takes a home folder" in run.stdout


def test_a_path_that_is_not_there_or_not_a_log_exits_1(cli: Cli, tmp_path: Path) -> None:
    missing = cli.tty("sessions", "import", "--path", str(tmp_path / "typo"))
    assert missing.returncode == 1 and "does not exist" in missing.stdout
    (tmp_path / "notes.txt").write_text("not a log")
    other = cli("sessions", "import", "--path", str(tmp_path / "notes.txt"))
    assert other.returncode == 1
    assert other.json()["skipped"][0]["reason"].startswith("its format is not recognised")


def test_it_fails_with_a_clear_message_when_the_server_is_unreachable(
    offline_cli: Cli, tmp_path: Path
) -> None:
    run = offline_cli("sessions", "import", "--path", str(home(tmp_path, "codex")))
    assert run.returncode == 1 and "cannot reach ctx" in run.stderr
