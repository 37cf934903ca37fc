"""Run the `ctx` CLI as a subprocess against pytest-django's live server.

`live_cast` mirrors tests.conftest.cast on a transactional database: the live server runs in
another thread with its own connection and must see the committed keys.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import socket
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cast, make_cast

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

CLI_SOURCE = Path(__file__).resolve().parents[2] / "cli"


@pytest.fixture
def live_cast(transactional_db: Any) -> Cast:
    """The canonical cast, committed, so a server in another thread or process sees it."""
    return make_cast()


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def free_port() -> int:
    """A port with nothing listening on it (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cli:
    """The CLI in a subprocess with its own HOME/XDG_CONFIG_HOME and CTX_BASE_URL/CTX_KEY."""

    home: Path
    url: str | None
    key: str | None
    extra_env: dict[str, str] = field(default_factory=dict)
    program: list[str] | None = None  # another `ctx` (an installed one); default: this checkout's

    @property
    def config_dir(self) -> Path:
        return self.home / ".config" / "ctx"

    def env(self, **overrides: str | None) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "LANG": "C.UTF-8",
            # The client package of this checkout (cli/), not whichever one is installed.
            "PYTHONPATH": str(CLI_SOURCE),
            "CTX_BASE_URL": self.url,
            "CTX_KEY": self.key,
            **self.extra_env,
            **overrides,
        }
        return {k: v for k, v in env.items() if v is not None}

    def command(self, args: tuple[str, ...]) -> list[str]:
        return [*(self.program or [sys.executable, "-m", "ctx_cli.main"]), *args]

    def __call__(
        self, *args: str, stdin: str | None = None, cwd: Path | None = None, **env: str | None
    ) -> Run:
        proc = subprocess.run(
            self.command(args),
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env=self.env(**env),
            cwd=cwd or self.home,
            timeout=120,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def tty(self, *args: str, columns: int = 200, **env: str | None) -> Run:
        """Run with stdout on a pseudo-terminal (what a person sees); ANSI codes removed."""
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        proc = subprocess.Popen(
            self.command(args),
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=self.env(TERM="xterm-256color", COLUMNS=str(columns), **env),
            cwd=self.home,
        )
        os.close(slave)
        output = read_all(master)
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=60)
        text = ANSI.sub("", output.decode()).replace("\r\n", "\n")
        return Run(proc.returncode, text, stderr)


def read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return b"".join(chunks)


@pytest.fixture
def no_broker(settings: Any) -> None:
    """Writes skip the embedding enqueue (retrieval.tasks.enqueue_embedding's own switch).

    The live server commits for real, so after-write hooks run; this process never loads
    ctx.celery, and Celery's default AMQP broker makes each write wait seconds to fail.
    """
    settings.CELERY_BROKER_URL = ""


@pytest.fixture(scope="session")
def warm_embedder() -> None:
    """Load the passage embedder once, in this process, where the live server runs: a store
    embeds its text for near-duplicate hints, and the model's first load took 29.6 s at load
    12 on the 2 shared cores, past the CLI's 30 s timeout (issue 19.8: load it at start)."""
    from retrieval.embeddings import embed_texts  # torch: only sessions that run the CLI pay

    embed_texts(["warm up"], kind="passage", level="public")


@pytest.fixture
def cli(
    tmp_path: Path, live_server: Any, live_cast: Cast, no_broker: None, warm_embedder: None
) -> Cli:
    """The CLI as the acme owner against the live server."""
    return Cli(home=tmp_path, url=live_server.url, key=live_cast.owner.key)


@pytest.fixture
def offline_cli(tmp_path: Path) -> Cli:
    """The CLI pointed at a port where nothing listens."""
    return Cli(home=tmp_path, url=f"http://127.0.0.1:{free_port()}", key="ctx_offline_key")


@pytest.fixture
def blackhole_url() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
