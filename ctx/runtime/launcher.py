"""`make run`: embedded services, migrations, a one-time admin key, then web + worker + beat.

Runs without importing Django, so a malformed setting is reported before anything starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import FrameType

from ctx import config
from ctx.runtime import embedded
from rls.role import runtime_database_url

ROOT = Path(__file__).resolve().parents[2]


def attach_embedded() -> embedded.Embedded | None:
    """For manage.py: reuse (or start) the embedded PostgreSQL when DATABASE_URL is unset."""
    if os.environ.get("DATABASE_URL"):
        return None
    values = _load_or_exit()
    data_dir = (ROOT / str(values["CTX_DATA_DIR"])).resolve()
    handles = embedded.Embedded()
    handles._pg, handles.database_url = embedded.start_postgres(data_dir)
    os.environ["DATABASE_URL"] = handles.database_url
    sock = data_dir / "run" / "redis.sock"
    if not os.environ.get("REDIS_URL") and sock.exists():
        os.environ["REDIS_URL"] = f"redis+socket://{sock}"
    return handles


def _load_or_exit() -> dict[str, object]:
    try:
        return config.load()
    except config.ConfigError as exc:
        print(f"ctx: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def free_port(host: str, preferred: int) -> int:
    """The preferred port if it is free, else one the kernel picks."""
    for port in (preferred, 0):
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError("no free port")


def _manage(*args: str, capture: bool = False) -> str:
    result = subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, str(ROOT / "manage.py"), *args],
        check=True,
        text=True,
        capture_output=capture,
    )
    return result.stdout if capture else ""


def _collect_static() -> subprocess.Popen[bytes]:
    """`collectstatic` in the background: the web server's WhiteNoise serves what it wrote.

    It needs no database, so it runs while migrate and bootstrap do: hashing and compressing
    (gzip and brotli) the admin's and the web UI's files takes ~10 s of CPU on two cores."""
    command = [sys.executable, str(ROOT / "manage.py"), "collectstatic", "--noinput", "-v", "0"]
    return subprocess.Popen(command)  # noqa: S603 - our own interpreter and manage.py


def _finish(proc: subprocess.Popen[bytes]) -> None:
    if proc.wait() != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args)


def _wait_healthy(url: str, procs: list[subprocess.Popen[bytes]], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a server process exited during start-up")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as resp:  # noqa: S310
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the web server did not answer {url}/health in {timeout:.0f} s")


def _runtime_url(handles: embedded.Embedded) -> str | None:
    """The embedded database as the row-level-security runtime role (migrations and bootstrap
    ran as the owner). An external DATABASE_URL is used as given: docs/rls.md."""
    return runtime_database_url(handles.database_url) if handles.database_url else None


def _spawn(
    values: dict[str, object], data_dir: Path, port: int, *, runtime_url: str | None = None
) -> list[subprocess.Popen[bytes]]:
    py = sys.executable
    run_dir = data_dir / "run"
    commands = [
        [
            py,
            "-m",
            "uvicorn",
            "ctx.asgi:app",
            "--host",
            str(values["CTX_HOST"]),
            "--port",
            str(port),
            "--workers",
            "2",
            "--log-level",
            "warning",
            # uvicorn kills a worker that misses a 5 s health ping; a busy worker on a loaded
            # 2-core machine can, which reset connections mid-ingest (measured).
            "--timeout-worker-healthcheck",
            "60",
        ],
        [
            py,
            "-m",
            "celery",
            "-A",
            "ctx",
            "worker",
            "--loglevel",
            "warning",
            "--concurrency",
            str(values["CTX_WORKERS"]),
            "--hostname",
            f"ctx-{os.getpid()}@%h",
        ],
        [
            py,
            "-m",
            "celery",
            "-A",
            "ctx",
            "beat",
            "--loglevel",
            "warning",
            "--schedule",
            str(run_dir / "celerybeat-schedule"),
        ],
    ]
    if not values["CTX_WORKERS"]:
        commands = commands[:1] + commands[2:]
    else:
        commands.append(_ingest_worker(py))
    envs = [_thread_env(c, values) for c in commands]
    if runtime_url:
        for env in envs:
            env["DATABASE_URL"] = runtime_url
    procs = [subprocess.Popen(c, cwd=ROOT, env=e) for c, e in zip(commands, envs, strict=True)]  # noqa: S603
    for proc, command in zip(procs, commands, strict=True):
        if "worker" in command and INGEST_QUEUE not in command:
            _yield_to_requests(proc.pid)
    return procs


WORKER_NICE = 10
INGEST_QUEUE = "ingest"  # settings.CELERY_TASK_ROUTES


def _ingest_worker(py: str) -> list[str]:
    """A worker of its own for conversation imports (ingest/): the client waits for them, so
    they must not queue behind the embedding of the windows the previous batches wrote (two
    embedding tasks occupied both processes of the main worker). It loads no model, runs at
    normal priority, one process."""
    return [
        py,
        "-m",
        "celery",
        "-A",
        "ctx",
        "worker",
        "--loglevel",
        "warning",
        "--queues",
        INGEST_QUEUE,
        "--concurrency",
        "1",
        "--hostname",
        f"ctx-ingest-{os.getpid()}@%h",
    ]


def _yield_to_requests(pid: int) -> None:
    """Run the Celery worker at a lower CPU priority (its pool processes, forked once it has
    booted, inherit it). Embedding and dreaming are background work: on a small machine an
    ingest's embeddings took a core from the web workers storing the next batches (measured:
    a third of the CPU during `ctx ingest`); they now use what the requests leave."""
    with contextlib.suppress(OSError):  # not permitted here: it runs at normal priority
        os.setpriority(os.PRIO_PROCESS, pid, WORKER_NICE)


def _thread_env(command: list[str], values: dict[str, object]) -> dict[str, str]:
    """Split the cores between processes: torch's default (every core in every process)
    oversubscribes a small machine and made embedding 10x slower when measured."""
    cpus = os.cpu_count() or 1
    procs = int(str(values["CTX_WORKERS"])) if "worker" in command else 2
    if INGEST_QUEUE in command:
        procs = os.cpu_count() or 1  # one thread: it embeds nothing
    threads = str(max(1, cpus // max(1, procs)))
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, threads)
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    if "uvicorn" in command:
        # ASGI runs each request's ORM work on a thread of its own; Django's per-thread
        # persistent connections then accumulate until PostgreSQL refuses clients (measured),
        # and a new connection per request costs a cold backend. A pool serves every thread
        # (6: a few requests at once, each with up to two helpers: retrieval/parallel.py).
        env["CTX_DB_CONN_MAX_AGE"] = "0"
        env.setdefault("CTX_DB_POOL", "6")
    return env


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()


def run() -> int:
    values = _load_or_exit()
    data_dir = (ROOT / str(values["CTX_DATA_DIR"])).resolve()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    handles = embedded.start(data_dir)
    procs: list[subprocess.Popen[bytes]] = []
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        procs = [_collect_static()]  # in the list: stopped with the rest if the start fails
        _manage("migrate", "--noinput", "-v", "0")
        first_key = _manage("bootstrap", capture=True).strip()
        _finish(procs.pop())
        port = free_port(str(values["CTX_HOST"]), int(str(values["CTX_PORT"])))
        url = f"http://{values['CTX_HOST']}:{port}"
        procs = _spawn(values, data_dir, port, runtime_url=_runtime_url(handles))
        _wait_healthy(url, procs)
        _banner(url, first_key, data_dir)
        while not stopping and all(p.poll() is None for p in procs):
            time.sleep(0.5)
    finally:
        print("ctx: stopping…", file=sys.stderr)
        _stop(procs)
        handles.stop()
    return 0


def _banner(url: str, first_key: str, data_dir: Path) -> None:
    print(f"\nctx is running at {url}  (data in {data_dir}; Ctrl-C stops everything)")
    if first_key:
        print("\nBootstrap admin key (shown once, store it now):\n")
        print(f"    {first_key}\n")
        print(f'    curl -H "X-Context-Key: {first_key}" {url}/api/whoami\n')
    print("ctx: ready")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        return run()
    print("usage: python -m ctx.runtime.launcher run", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
