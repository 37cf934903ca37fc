"""Fixture homes: a copy of `fixtures/<tool>/` in a temporary directory, laid out as the tool
lays out its files, with every `state.vscdb.json` spec built into a real `state.vscdb`."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def build_vscdb(spec: Path, target: Path, journal: str = "wal") -> Path:
    """A `state.vscdb` with VS Code's two tables, filled from a `{table: {key: value}}` spec."""
    data: dict[str, dict[str, Any]] = json.loads(spec.read_text())
    conn = sqlite3.connect(target)
    conn.execute(f"PRAGMA journal_mode = {journal}")
    for table in ("ItemTable", "cursorDiskKV"):
        if table in data:
            conn.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
            rows = [
                (k, json.dumps(v) if not isinstance(v, str) else v) for k, v in data[table].items()
            ]
            conn.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)  # noqa: S608 - fixed table names
    conn.commit()
    conn.close()
    return target


def make_home(tool: str, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / tool, home)
    for spec in home.rglob("state.vscdb.json"):
        build_vscdb(spec, spec.with_name("state.vscdb"))
        spec.unlink()
    return home


@pytest.fixture
def fixture_home(tmp_path: Path) -> Callable[[str], Path]:
    return lambda tool: make_home(tool, tmp_path)


def read_home(tool: str, home: Path) -> dict[str, Any]:
    """Every file `locate()` finds under `home`, read once: {external id: session}."""
    from ctx_cli.sessions import parsers

    sessions: dict[str, Any] = {}
    for path in parsers.get(tool).locate(home, "linux", {}):
        result = parsers.read_as(tool, path)
        assert not result.problems, result.problems
        assert result.drift.total == 0, result.drift.to_dict()
        for session in result.sessions:
            sessions[session.external_id] = session
    return sessions


def roles(session: Any) -> list[str]:
    return [m.role for m in session.messages]
