"""`make run`: embedded services, migrations, a one-time admin key, then web + worker + beat.

Runs without importing Django, so a malformed setting is reported before anything starts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from functools import partial
from pathlib import Path
from types import FrameType

from ctx import config
from ctx.runtime import embedded, ready
from ctx.runtime.supervisor import Child, Supervisor, say, session
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
    """The preferred port if it is free, else one the kernel picks. SO_REUSEADDR as uvicorn
    binds: a port left only in TIME_WAIT by the previous run is free for it."""
    for port in (preferred, 0):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError("no free port")


def choose_port(host: str, wanted: int, *, explicit: bool) -> int:
    """`wanted` if it is free. When it is taken, a CTX_PORT that was set is refused (what was
    configured for it, the CLI, MCP clients, ingest state, would reach another program or
    nothing) and the default moves to a free port, loudly. 0 means any free port."""
    port = free_port(host, wanted)
    if wanted == 0 or port == wanted:
        return port
    if explicit:
        print(
            f"ctx: port {wanted} on {host} is in use (CTX_PORT={wanted}); stop what holds it or "
            "set CTX_PORT to another port.",
            file=sys.stderr,
        )
        raise SystemExit(2)
    print(
        f"\nctx: WARNING: port {wanted} on {host} is in use, so ctx runs on port {port} "
        f"instead.\nctx: a CLI config, MCP URL or ingest state made for :{wanted} will not reach "
        "it; set CTX_PORT to choose the port (a busy one then stops the start).\n",
        file=sys.stderr,
    )
    return port


SECRETS_KEY_NAMES = ("CTX_SECRETS_KEY", "CTX_SECRETS_KEY_FILE")


def use_secrets_key_file(data_dir: Path) -> None:
    """With the embedded services and no master key configured, sealed secrets use a key in the
    data directory, made once (64 hex characters, mode 0600) as the Django secret key is, and
    announced once. Compose and external databases set their own key (docs/secrets.md)."""
    if os.environ.get("DATABASE_URL") or any(os.environ.get(n) for n in SECRETS_KEY_NAMES):
        return
    path = data_dir / "secrets_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(os.urandom(32).hex())  # not `secrets`: the project's package shadows it
        print(
            f"ctx: made the master key for sealed secrets: {path} (mode 0600). Back it up with "
            "the data; without it no secret opens. CTX_SECRETS_KEY(_FILE) sets your own."
        )
    os.environ["CTX_SECRETS_KEY_FILE"] = str(path)  # the web server and workers inherit it


def _manage(*args: str) -> str:
    """Run a manage.py command; its stdout. Its stderr (the log, a failed check's reason) is
    the launcher's."""
    result = subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, str(ROOT / "manage.py"), *args],
        check=True,
        text=True,
        stdout=subprocess.PIPE,
    )
    return result.stdout


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


HTTP_PROTOCOL = "ctx.runtime.http:NoDelayH11Protocol"
WEB_WORKERS = 2


def uvicorn_args(values: dict[str, object], port: int, workers: int = WEB_WORKERS) -> list[str]:
    """The web server's command line after the interpreter (tests start it the same way)."""
    args = ["-m", "uvicorn", "ctx.asgi:app", "--host", str(values["CTX_HOST"])]
    args += ["--port", str(port), "--workers", str(workers)]
    args += ["--http", HTTP_PROTOCOL]  # Nagle off on every connection (ctx/runtime/http.py)
    # uvicorn kills a worker that misses a 5 s health ping; a busy worker on a loaded 2-core
    # machine can, which reset connections mid-ingest (measured).
    args += ["--log-level", "warning", "--timeout-worker-healthcheck", "60"]
    if not values["CTX_TRUST_PROXY"]:
        # uvicorn trusts X-Forwarded-For/-Proto from loopback by default: any local client
        # could claim another address (the DCR per-IP limit, the access log) or https.
        args.append("--no-proxy-headers")
    return args


def _commands(values: dict[str, object], data_dir: Path, port: int) -> dict[str, list[str]]:
    py = sys.executable
    celery = [py, "-m", "celery", "-A", "ctx", "--quiet"]  # no banner: the key is what counts
    commands = {
        "web": [py, *uvicorn_args(values, port)],
        "worker": [
            *celery,
            "worker",
            "--loglevel",
            "warning",
            "--concurrency",
            str(values["CTX_WORKERS"]),
            "--hostname",
            f"ctx-{os.getpid()}@%h",
        ],
        "beat": [
            *celery,
            "beat",
            "--loglevel",
            "warning",
            "--schedule",
            str(data_dir / "run" / "celerybeat-schedule"),
        ],
    }
    if not values["CTX_WORKERS"]:
        del commands["worker"]
    else:
        commands["ingest"] = _ingest_worker(py)
    return commands


def _children(
    values: dict[str, object], data_dir: Path, port: int, *, runtime_url: str | None = None
) -> list[Child]:
    """web, worker and beat as supervised children (not started yet)."""
    children = []
    for name, command in _commands(values, data_dir, port).items():
        env = _thread_env(command, values)
        env.update(_quiet_env(env))
        env[ready.ENV] = str(_ready_dir(data_dir) / name)
        if runtime_url:
            env["DATABASE_URL"] = runtime_url
        children.append(Child(name, partial(_popen, name, command, env)))
    return children


# What children print that nobody can act on, and that buried the bootstrap key: the model's
# "Loading weights" bars (tqdm, the Hugging Face libraries), platformdirs' note that
# XDG_RUNTIME_DIR is unset (it falls back to /tmp/runtime-<uid>, which works), and the
# resource tracker's "leaked semaphore" note when a worker that loaded torch stops. A variable
# the user set wins.
QUIET = {
    "TQDM_DISABLE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "PYTHONWARNINGS": "ignore:XDG_RUNTIME_DIR is not set,ignore:resource_tracker",
}


def _quiet_env(env: dict[str, str]) -> dict[str, str]:
    return {name: env.get(name) or value for name, value in QUIET.items()}


def _ready_dir(data_dir: Path) -> Path:
    return data_dir / "run" / "ready"


def _clear_ready(data_dir: Path) -> None:
    """A fresh directory for this run's announcements (a previous run's would count)."""
    shutil.rmtree(_ready_dir(data_dir), ignore_errors=True)
    _ready_dir(data_dir).mkdir(parents=True)


READY_TIMEOUT = 180  # seconds after the web server answered; a loaded 2-core machine is slow


def _wait_ready(data_dir: Path, children: list[Child]) -> None:
    """Until every child said it is ready (ctx/runtime/ready.py): each uvicorn worker once its
    embedder is loaded, each Celery worker and beat once started. Past the deadline the
    launcher goes on, and says what is still starting."""
    counts = {c.name: WEB_WORKERS if c.name == "web" else 1 for c in children}
    files = {name: (_ready_dir(data_dir) / name, n) for name, n in counts.items()}
    procs = [c.proc for c in children if c.proc is not None]
    late = ready.wait(files, procs, READY_TIMEOUT)
    if late:
        say(f"still starting after {READY_TIMEOUT} s: {', '.join(late)}")


def _popen(name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=session())  # noqa: S603
    if name == "worker":
        _yield_to_requests(proc.pid)
    return proc


WORKER_NICE = 10
INGEST_QUEUE = "ingest"  # settings.CELERY_TASK_ROUTES
INGEST_PROCESSES = 2


def _ingest_worker(py: str) -> list[str]:
    """A worker of its own for conversation imports (ingest/): the client waits for them, so
    they must not queue behind the embedding of the windows the previous batches wrote (two
    embedding tasks occupied both processes of the main worker). It loads no model and runs
    at normal priority, in two processes: a job waits on PostgreSQL for about half its time
    (the windows' text-search columns), and the client keeps four jobs queued (measured on
    the bench's 10,000 messages: 591 -> 866 messages/s). ingest.services locks a batch's
    sessions in one order, so two jobs cannot wait on each other."""
    return [
        py,
        "-m",
        "celery",
        "-A",
        "ctx",
        "--quiet",
        "worker",
        "--loglevel",
        "warning",
        "--queues",
        INGEST_QUEUE,
        "--concurrency",
        str(INGEST_PROCESSES),
        "--hostname",
        f"ctx-ingest-{os.getpid()}@%h",
    ]


def _yield_to_requests(pid: int) -> None:
    """Run the Celery worker at a lower CPU priority (its pool processes, forked once it has
    booted, inherit it). Embedding and dreaming are background work: on a small machine an
    ingest's embeddings took a core from the web workers storing the next batches (measured:
    a third of the CPU during `ctx ingest`); they now use what the requests leave.

    Where Linux groups processes by session for scheduling (autogroups, on by default), a
    process's nice value orders it only inside its own session's group, and each child runs
    in a session of its own (the supervisor ends its children by session): the groups shared
    the CPU equally, so the niced worker's extraction of imported sessions still took its
    full share while the client waited on the import (measured: 1.6 of 11.5 CPU seconds of
    the bench's 10,000 messages). The worker's group gets the same nice value."""
    with contextlib.suppress(OSError):  # not permitted here: it runs at normal priority
        os.setpriority(os.PRIO_PROCESS, pid, WORKER_NICE)
    if session():  # the group is the worker's alone (never the launcher's own)
        with contextlib.suppress(OSError):  # no autogroups (other systems, kernels): as above
            Path(f"/proc/{pid}/autogroup").write_text(f"{WORKER_NICE}\n")


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


def _supervise(handles: embedded.Embedded, data_dir: Path, children: list[Child]) -> Supervisor:
    """The supervisor of web, worker, beat and (when embedded) Redis, which is handed over
    from `handles` so that a restarted Redis is the one stopped at the end."""
    sup = Supervisor()
    for child in children:
        sup.add(child)
    if handles._redis is not None:
        run_dir = data_dir / "run"
        redis = sup.add(Child("redis", lambda: embedded.start_redis(run_dir)[0]))
        redis.proc, redis.started_at = handles._redis, time.monotonic()
        handles._redis = None
    return sup


class PostgresWatch:
    """Says in the log when the embedded PostgreSQL goes away and comes back. It is not
    restarted by ctx: an operator may have stopped it; requests answer 503 meanwhile."""

    def __init__(self, handles: embedded.Embedded, data_dir: Path) -> None:
        self.pgdata = data_dir / "pg" if handles._pg is not None else None
        self.up = True

    def poll(self) -> None:
        if self.pgdata is None:
            return
        up = embedded.postgres_running(self.pgdata)
        if up != self.up:
            self.up = up
            say(
                "PostgreSQL is back"
                if up
                else "PostgreSQL is not running; requests answer 503 until it is back "
                "(ctx does not restart it)"
            )


def run() -> int:
    values = _load_or_exit()
    # Before anything starts: a refused port costs nothing to stop for.
    explicit = bool(os.environ.get("CTX_PORT", "").strip())
    port = choose_port(str(values["CTX_HOST"]), int(str(values["CTX_PORT"])), explicit=explicit)
    data_dir = (ROOT / str(values["CTX_DATA_DIR"])).resolve()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    use_secrets_key_file(data_dir)
    handles = embedded.start(data_dir)
    sup = Supervisor()
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        procs = [_collect_static()]  # in the list: stopped with the rest if the start fails
        # migrate, bootstrap and one log record of every setting, in one process
        first_key = _manage("prepare").strip()
        _finish(procs.pop())
        port = choose_port(str(values["CTX_HOST"]), port, explicit=explicit)  # taken meanwhile?
        url = f"http://{values['CTX_HOST']}:{port}"
        children = _children(values, data_dir, port, runtime_url=_runtime_url(handles))
        sup = _supervise(handles, data_dir, children)
        _clear_ready(data_dir)
        for child in children:
            child.launch()
        _wait_healthy(url, [c.proc for c in children if c.proc is not None])
        _wait_ready(data_dir, children)  # the key comes last, after what the children print
        _banner(url, first_key, data_dir)
        watch = PostgresWatch(handles, data_dir)
        while not stopping:
            sup.poll()
            watch.poll()
            time.sleep(0.5)
    except subprocess.CalledProcessError as exc:
        # manage.py said why on stderr (e.g. ctx.E020: secrets exist, no master key): that
        # sentence is the message; a traceback of the launcher would only bury it.
        step = Path(str(exc.cmd[1])).name + " " + str(exc.cmd[2]) if len(exc.cmd) > 2 else exc.cmd
        print(f"ctx: `{step}` failed (its message is above); nothing was started.", file=sys.stderr)
        return 1
    finally:
        say("stopping…")
        sup.stop(["web", "worker", "ingest", "beat"])
        sup.stop(["redis"])  # last: the workers stop without broker errors
        handles.stop()
    return 0


def _banner(url: str, first_key: str, data_dir: Path) -> None:
    print(f"\nctx is running at {url}  (data in {data_dir}; Ctrl-C stops everything)")
    if first_key:
        print("\nBootstrap admin key (shown once, store it now):\n")
        print(f"    {first_key}\n")
        print(f'    curl -H "X-Context-Key: {first_key}" {url}/api/whoami\n')
        print(f"Admin: open {url}/admin/ and sign in with this key.\n")
    else:
        print(
            f"\nAdmin: {url}/admin/, signed in with an owner or admin API key (the bootstrap "
            "key is one;\n  `python manage.py keys create --tenant default --home default:main "
            "--role owner` prints another).\n"
        )
    _cli_hint()
    print("ctx: ready")
    sys.stdout.flush()


def _cli_hint() -> None:
    """How to reach the `ctx` command line, when the shell would not find this one."""
    cli = Path(sys.executable).parent / "ctx"
    found = shutil.which("ctx")
    if found and Path(found).resolve() == cli.resolve():
        return
    print(
        f"The `ctx` command line is {cli}; `make cli` links it into ~/.local/bin "
        "(or add its directory to PATH).\n"
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        return run()
    print("usage: python -m ctx.runtime.launcher run", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
