"""A real `uvicorn ctx.asgi:app` on a free port, on pytest-django's test database.

Started in a subprocess, as `make run` serves the app. `shared()` gives the whole session one
server the way `make run` configures it: logged in as the runtime role (row-level security
applies), a connection pool, and the static files collected into a folder of the session
(hashed, compressed, served by WhiteNoise). Tests that talk to it use a transactional
database (`django_db(transaction=True)`), so rows the test writes are committed and visible to
the server, and the server's writes to the test.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from ctx.runtime.launcher import HTTP_PROTOCOL
from rls.role import runtime_database_url

ROOT = Path(__file__).resolve().parents[2]
# The live server's master key for sealed secrets (the admin's secret pages seal with it).
SECRETS_KEY = "5e" * 32


@dataclass
class LiveServer:
    url: str
    log: Path
    static_root: Path | None = None  # where its static files were collected, if they were

    @property
    def mcp(self) -> str:
        return self.url + "/mcp"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_log(self, needle: str, timeout: float = 5) -> str:
        """The log once it contains `needle` (lines are written after the response is sent)."""
        deadline = time.monotonic() + timeout
        while needle not in (text := self.log_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert needle in text, text[-2000:]
        return text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url(name: str) -> str:
    """DATABASE_URL with pytest-django's test database (`test_<name>`) in place of the name."""
    return urlsplit(os.environ["DATABASE_URL"])._replace(path="/" + name).geturl()


def collect_static(static_root: Path) -> None:
    """`manage.py collectstatic` into `static_root`, as the launcher runs it before uvicorn."""
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, "CTX_STATIC_ROOT": str(static_root)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"collectstatic failed:\n{result.stdout}\n{result.stderr}"


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("uvicorn exited:\n" + log.read_text(errors="replace")[-4000:])
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("uvicorn did not become healthy:\n" + log.read_text()[-4000:])


def start(db_name: str, secret_key: str, log: Path, **env: str) -> Iterator[LiveServer]:
    port = free_port()
    environ = {
        **os.environ,
        "DATABASE_URL": database_url(db_name),
        "CTX_SECRET_KEY": secret_key,  # the API keys' HMAC pepper must match the test process
        "CTX_LOG_LEVEL": "info",
        **env,
    }
    args = ["-m", "uvicorn", "ctx.asgi:app", "--host", "127.0.0.1", "--port", str(port)]
    args += ["--http", HTTP_PROTOCOL]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield LiveServer(url=url, log=log)
    finally:
        proc.terminate()
        proc.wait(15)


_shared: dict[str, LiveServer] = {}


def shared(tmp_path_factory: Any) -> Iterator[LiveServer]:
    """One server for the whole session, whichever fixture asks first.

    The first caller owns the process and stops it at its teardown, which comes before
    pytest-django drops the test database (its fixture depends on django_db_setup).
    """
    if "server" in _shared:
        yield _shared["server"]
        return
    from django.conf import settings
    from django.db import connection

    name = connection.settings_dict["NAME"]
    # pytest-django creates the test database only when a collected test asks for one.
    assert name.startswith("test_"), "mark the test django_db: the live server needs the test db"
    folder = tmp_path_factory.mktemp("live")
    collect_static(folder / "static")
    env = {
        # As `make run` runs the web server: the runtime role and a pool (ctx/runtime/launcher).
        "DATABASE_URL": runtime_database_url(database_url(name)),
        "CTX_DB_POOL": "4",
        "CTX_STATIC_ROOT": str(folder / "static"),
        # Near-duplicate hints embed every stored text; they are dream's feature, tested there.
        "CTX_GUARD_HINTS": "false",
        "CTX_SECRETS_KEY": SECRETS_KEY,
        "CTX_BLOB_DIR": str(folder / "blobs"),  # not the checkout's data directory
    }
    for server in start(name, settings.SECRET_KEY, folder / "uvicorn.log", **env):
        server.static_root = folder / "static"
        _shared["server"] = server
        try:
            yield server
        finally:
            del _shared["server"]
