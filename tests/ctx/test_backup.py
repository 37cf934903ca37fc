"""The whole-database backup of docs/operations.md: what `pg_dump` takes of ctx's database,
`pg_restore` puts into an empty database without a single error (it once failed on every
table naming `ctx_block`: a function body resolved another function through the search_path,
which pg_restore empties)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pgserver
import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

BIN = Path(pgserver.__file__).parent / "pginstall" / "bin"


def _pg(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    db = connection.settings_dict
    conn = ["-h", str(db["HOST"]), "-U", str(db["USER"])]
    if db.get("PORT"):
        conn += ["-p", str(db["PORT"])]
    return subprocess.run(
        [str(BIN / tool), *conn, *args], capture_output=True, text=True, timeout=120
    )


def test_a_dump_restores_into_an_empty_database_without_errors(tmp_path: Path) -> None:
    dump = tmp_path / "ctx.dump"
    name = connection.settings_dict["NAME"]
    taken = _pg("pg_dump", "-d", name, "-Fc", "--schema-only", "-f", str(dump))
    assert taken.returncode == 0, taken.stderr
    fresh = f"{name}_restore_check"
    _pg("dropdb", "--if-exists", fresh)
    assert _pg("createdb", fresh).returncode == 0
    try:
        restored = _pg("pg_restore", "-d", fresh, "--no-owner", "--exit-on-error", str(dump))
        assert restored.returncode == 0, restored.stderr[-2000:]
        tables = _pg("psql", "-d", fresh, "-Atc", "SELECT count(*) FROM ctx_block")
        assert tables.stdout.strip() == "0", tables.stderr
    finally:
        _pg("dropdb", "--if-exists", fresh)
