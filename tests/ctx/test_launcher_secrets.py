"""`make run` and sealed secrets: a master key made once into the data directory."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.ctx.test_launcher import Server

pytestmark = pytest.mark.slow
SAID = "ctx: made the master key for sealed secrets"


def _put(server: Server, key: str, value: str) -> int:
    url = f"{server.url}/api/secrets/db-password"
    return httpx.put(url, json={"value": value}, headers={"X-Context-Key": key}).status_code


def test_it_makes_the_master_key_once_and_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CTX_SECRETS_KEY", "CTX_SECRETS_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"
    first = Server(data)
    try:
        key_file = data / "secrets_key"
        assert key_file.stat().st_mode & 0o777 == 0o600 and len(key_file.read_text()) == 64
        assert sum(SAID in line for line in first.output) == 1
        assert first.key, "a first start prints the bootstrap key"
        admin = first.key
        assert _put(first, admin, "s3cret-1") == 201  # was 503: no master key
    finally:
        assert first.stop() == 0
    made = key_file.read_text()
    again = Server(data)
    try:
        assert key_file.read_text() == made and not any(SAID in line for line in again.output)
        assert _put(again, admin, "s3cret-2") == 200  # the same key: the server starts and rotates
    finally:
        assert again.stop() == 0
