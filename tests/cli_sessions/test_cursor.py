from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ctx_cli.sessions import vscdb
from ctx_cli.sessions.parsers import cursor
from tests.cli_sessions.conftest import FIXTURES, build_vscdb, read_home, roles

AGENT = "c0ffee01-0000-4000-8000-000000000001"
OLD = "c0ffee02-0000-4000-8000-000000000002"
USER = Path(".config/Cursor/User")


def test_it_finds_the_global_and_workspace_databases(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("cursor")
    found = cursor.locate(home, "linux")
    assert found[0].parent.name == "globalStorage" and len(found) == 3
    mac = home / "Library" / "Application Support" / "Cursor"
    mac.parent.mkdir(parents=True)
    (home / ".config" / "Cursor").rename(mac)
    assert len(cursor.locate(home, "darwin")) == 3
    assert cursor.locate(home, "linux") == []


def test_it_reads_composers_with_their_projects(fixture_home: Callable[[str], Path]) -> None:
    sessions = read_home("cursor", fixture_home("cursor"))
    agent = sessions[AGENT]
    assert agent.title == "Fix login redirect"
    assert agent.project_root == "/home/dev/auth-service"  # listed by that workspace
    assert agent.meta == {"mode": "agent", "model": "claude-x-sonnet"}
    assert roles(agent) == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert agent.messages[1].tool_calls == ["read_file: src/login.ts"]
    assert agent.messages[2].text == "[read_file] if (!user) redirect('/login'); redirect('/home');"
    assert agent.messages[4].text == "Please fix it"  # from the rich-text editor state
    assert agent.started_at is not None and agent.last_activity_at is not None
    old = sessions[OLD]  # bubbles embedded in the composer (older versions)
    assert [m.text for m in old.messages] == [
        "Rename util.js to helpers.js",
        "Renamed and updated 4 imports.",
    ]
    assert old.project_root is None


def test_it_reads_the_legacy_chat_panel(fixture_home: Callable[[str], Path]) -> None:
    tab = read_home("cursor", fixture_home("cursor"))["tab-1"]
    assert (tab.title, tab.project_root) == ("Pagination bug", "/home/dev/old-proj")
    assert roles(tab) == ["user", "assistant"]


def _global(home: Path) -> Path:
    return home / USER / "globalStorage" / "state.vscdb"


def test_it_reads_only_new_bubbles_of_an_updated_composer(
    fixture_home: Callable[[str], Path],
) -> None:
    db = _global(fixture_home("cursor"))
    first = cursor.read(db)
    assert cursor.read(db, first.cursor).sessions == []
    conn = sqlite3.connect(db)
    data = json.loads(
        conn.execute(
            "SELECT value FROM cursorDiskKV WHERE key = ?", (f"composerData:{AGENT}",)
        ).fetchone()[0]
    )
    data["fullConversationHeadersOnly"].append({"bubbleId": "b6", "type": 1})
    data["lastUpdatedAt"] += 60_000
    rows = [
        (f"composerData:{AGENT}", json.dumps(data)),
        (f"bubbleId:{AGENT}:b6", json.dumps({"bubbleId": "b6", "type": 1, "text": "Thanks"})),
    ]
    conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    conn.commit()
    conn.close()
    again = cursor.read(db, first.cursor)
    assert [(s.external_id, [(m.index, m.text) for m in s.messages]) for s in again.sessions] == [
        (AGENT, [(6, "Thanks")])
    ]


def test_it_reads_while_the_editor_holds_the_database_open(
    fixture_home: Callable[[str], Path],
) -> None:
    db = _global(fixture_home("cursor"))
    writer = sqlite3.connect(db)
    writer.execute("BEGIN IMMEDIATE")  # a write transaction in progress (WAL)
    writer.execute("INSERT INTO cursorDiskKV VALUES ('x', '{}')")
    try:
        result = cursor.read(db)
    finally:
        writer.rollback()
        writer.close()
    assert not result.problems and len(result.sessions) == 2


def test_it_reports_a_locked_database_as_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vscdb, "BUSY_TIMEOUT_S", 0.1)
    spec = FIXTURES / "cursor" / USER / "globalStorage" / "state.vscdb.json"
    db = build_vscdb(spec, tmp_path / "state.vscdb", journal="delete")
    locker = sqlite3.connect(db)
    locker.execute("BEGIN EXCLUSIVE")  # rollback journal: readers are shut out
    try:
        result = cursor.read(db)
    finally:
        locker.rollback()
        locker.close()
    assert result.sessions == []
    assert len(result.problems) == 1 and "locked by another process" in result.problems[0]
    assert len(cursor.read(db, result.cursor).sessions) == 2  # read on the next run


def test_it_opens_databases_read_only(fixture_home: Callable[[str], Path]) -> None:
    db = _global(fixture_home("cursor"))
    before = db.read_bytes()
    cursor.read(db)
    assert db.read_bytes() == before
    conn = vscdb.connect(db)
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("CREATE TABLE ctx_probe (a)")
    finally:
        conn.close()
