"""`make run` under faults: a launcher on a temporary data dir, its children killed one by one.

A killed Celery worker, beat or embedded Redis comes back (the log says so, with the back-off)
while the web server keeps answering; SIGTERM stops everything, a PostgreSQL restarted by hand
included. The same launcher shows two details of how it serves: the port it was given is used
even when the previous run left it in TIME_WAIT, and a loopback client's X-Forwarded-For is not
believed (CTX_TRUST_PROXY is off). One launcher for the module: the tests run in file order.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from ctx.runtime.embedded import postgres_ctl
from tests.support.processes import alive, children, roles

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


class Launcher:
    """`python -m ctx.runtime.launcher run` with its output collected line by line."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_URL", "REDIS_URL", "CTX_TESTING", "CTX_DATA_DIR"}
        }
        env.update(
            CTX_DATA_DIR=str(data_dir), CTX_PORT=str(port), CTX_WORKERS="1", CTX_LOG_LEVEL="info"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctx.runtime.launcher", "run"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        # The banner waits for every child to be ready, the web server's embedder loaded: on a
        # loaded 2-core machine the first start took 245 s. A deadline, not a speed claim.
        self.url = self.wait_for(r"ctx is running at (\S+)", 360).group(1)
        self.key = self.wait_for(r"^\s+(ctx_[a-z0-9]{8}_[A-Za-z0-9]{40})\s*$").group(1)
        self.wait_for(r"^ctx: ready")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float = 60, after: int = 0) -> re.Match[str]:
        """The first line (from index `after`) matching `pattern`, waiting for it."""
        deadline = time.monotonic() + timeout
        exited = False
        while time.monotonic() < deadline:
            for line in self.lines[after:]:
                if match := re.search(pattern, line, re.M):
                    return match
            if exited:
                break
            exited = self.proc.poll() is not None  # one more look: the reader may lag
            time.sleep(0.2)
        raise AssertionError(f"no line like {pattern!r}:\n" + "".join(self.lines[-60:]))

    def children(self) -> dict[str, int]:
        """role -> pid of the launcher's children."""
        return roles(self.proc.pid)

    def health(self) -> int:
        return httpx.get(self.url + "/health", timeout=10).status_code


def _port_in_time_wait() -> int:
    """A loopback port whose last connection is in TIME_WAIT on the listening side, as the
    previous run's uvicorn (which sets SO_REUSEADDR) leaves it."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = int(listener.getsockname()[1])
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()  # the side that closes first keeps TIME_WAIT
        client.close()
    time.sleep(0.1)
    with socket.socket() as probe, pytest.raises(OSError):
        probe.bind(("127.0.0.1", port))  # as the old probe did: refused
    return port


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launcher]:
    port = _port_in_time_wait()
    server = Launcher(tmp_path_factory.mktemp("supervised") / "data", port)
    server.port_asked = port  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.proc.send_signal(signal.SIGTERM)
            server.proc.wait(90)


def test_it_serves_on_the_port_left_in_time_wait(launcher: Launcher) -> None:
    assert urlsplit(launcher.url).port == launcher.port_asked  # type: ignore[attr-defined]


def test_it_logs_the_peer_not_a_forwarded_for_claim(launcher: Launcher) -> None:
    mark = len(launcher.lines)
    metadata = httpx.get(
        launcher.url + "/.well-known/oauth-authorization-server",
        headers={"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https"},
        timeout=30,
    ).json()
    assert metadata["issuer"] == launcher.url  # not https: the claim was not believed
    line = launcher.wait_for(r"GET /\.well-known/oauth-authorization-server .*", after=mark)
    assert "client=127.0.0.1" in line.group(0) and "203.0.113.7" not in line.group(0)


@pytest.mark.parametrize("role", ["worker", "beat"])
def test_it_restarts_a_killed_celery_process_while_the_web_answers(
    launcher: Launcher, role: str
) -> None:
    before = launcher.children()
    web = before["web"]
    orphans = list(children(before[role]))  # the worker's pool processes
    mark = len(launcher.lines)
    os.kill(before[role], signal.SIGKILL)
    launcher.wait_for(
        rf"{role} \(pid {before[role]}\) was killed by SIGKILL; restarting in 1 s", after=mark
    )
    assert launcher.health() == 200  # the web server was never stopped
    new = int(launcher.wait_for(rf"{role} restarted \(pid (\d+), restart 1\)", after=mark).group(1))
    assert launcher.children()[role] == new and alive(new)
    assert launcher.children()["web"] == web
    assert not [pid for pid in orphans if alive(pid)]  # the old pool went with its master


def test_it_restarts_redis_and_embeds_what_is_stored_after(launcher: Launcher) -> None:
    headers = {"X-Context-Key": launcher.key}
    # A first store loads the web worker's embedding model (the guard hint): on a loaded
    # 2-core machine that alone took over 30 s, which is not what this test is about.
    with httpx.Client(base_url=launcher.url, headers=headers, timeout=120) as c:
        body = {"category": "ops", "title": "Before Redis", "content": "stored before the kill"}
        assert c.post("/api/store", json=body).status_code == 201
    redis = launcher.children()["redis"]
    mark = len(launcher.lines)
    os.kill(redis, signal.SIGKILL)
    launcher.wait_for(
        rf"redis \(pid {redis}\) was killed by SIGKILL; restarting in 1 s", after=mark
    )
    launcher.wait_for(r"redis restarted \(pid \d+", after=mark)
    with httpx.Client(base_url=launcher.url, headers=headers, timeout=30) as c:
        body = {"category": "ops", "title": "After Redis", "content": "stored after the restart"}
        assert c.post("/api/store", json=body).status_code == 201
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            stats = c.post("/api/manage", json={"action": "stats"}).json()["stats"]
            if stats["awaiting_embedding"] == 0:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("not embedded:\n" + "".join(launcher.lines[-40:]))


def test_it_stops_everything_on_sigterm_even_a_postgres_restarted_by_hand(
    launcher: Launcher,
) -> None:
    postgres_ctl(launcher.data_dir / "pg", "restart")
    children = launcher.children()
    assert {"web", "worker", "ingest", "beat", "redis"} <= set(children)
    launcher.proc.send_signal(signal.SIGTERM)
    assert launcher.proc.wait(90) == 0
    assert not [role for role, pid in children.items() if alive(pid)], "every child stops"
    leftovers = subprocess.run(
        ["pgrep", "-f", str(launcher.data_dir)], capture_output=True, text=True
    )
    assert leftovers.stdout.strip() == "", "every process of the data dir stops with ctx"
