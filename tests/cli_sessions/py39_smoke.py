"""Run by test_python39.py under a real Python 3.9: parse every fixture, re-read with cursors,
make windows. Standard library only (no pytest), like the CLI on a user's machine."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])

from ctx_cli.sessions import parsers
from ctx_cli.sessions.windows import windows

FIXTURES = Path(__file__).parent / "fixtures"
HOMES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "copilot": "copilot",
    "cursor": "cursor",
}
EXPORTS = {"chatgpt": "chatgpt", "claude-ai": "claude_ai"}


def build_databases(home: Path) -> None:
    for spec in home.rglob("state.vscdb.json"):
        data = json.loads(spec.read_text())
        conn = sqlite3.connect(spec.with_name("state.vscdb"))
        for table, rows in data.items():
            conn.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
            values = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in rows.items()]
            conn.executemany(f"INSERT INTO {table} VALUES (?, ?)", values)  # noqa: S608 - fixed table names
        conn.commit()
        conn.close()


def count(tool: str, paths: list[Path]) -> int:
    total = 0
    for path in paths:
        result = parsers.read_as(tool, path)
        assert not result.problems and result.drift.total == 0, (path, result.problems)
        total += result.message_count
        for session in result.sessions:
            windows(session.messages)
        assert parsers.read_as(tool, path, result.cursor).message_count == 0, path
    return total


def main() -> None:
    tmp = Path(sys.argv[2])
    counts = {}
    for tool, folder in HOMES.items():
        home = tmp / folder
        shutil.copytree(FIXTURES / folder, home)
        build_databases(home)
        counts[tool] = count(tool, parsers.get(tool).locate(home, "linux", {}))
    for tool, folder in EXPORTS.items():
        counts[tool] = count(tool, [FIXTURES / folder / "conversations.json"])
    print(sys.version.split()[0], " ".join(f"{k}={v}" for k, v in counts.items()))


main()
