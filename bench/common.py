"""Shared benchmark plumbing: a private server, percentiles, machine facts, result printing."""

from __future__ import annotations

import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EVAL_DATA = Path(os.environ.get("CTX_EVAL_DATA", ROOT.parent / "shared" / "eval" / "data"))


@dataclass
class ServerInfo:
    url: str
    key: str
    process: subprocess.Popen[str] | None = None
    data_dir: Path | None = None  # a private server's data (its PostgreSQL, Redis socket)


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "mem_gb": round(mem_gb, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[idx]


def emit(result: dict[str, Any], summary: str, out: str | None = None) -> None:
    """JSON on stdout (and to `out`), then the one-line summary as the last line."""
    result = {**result, "machine": machine()}
    text = json.dumps(result, indent=2, default=str)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)
    print(text)
    print(summary)
    sys.stdout.flush()


@contextmanager
def private_server(
    workers: int = 1,
    extra_env: dict[str, str] | None = None,
    prefix: str = "ctx-bench-",
) -> Iterator[ServerInfo]:
    """Start `python -m ctx.runtime.launcher run` on a fresh data dir; yield its URL, admin key."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        CTX_DATA_DIR=str(data_dir),
        CTX_PORT="0",
        CTX_WORKERS=str(workers),
        HF_HUB_OFFLINE="1",
        **(extra_env or {}),
    )
    log = data_dir.with_suffix(".log")  # kept after the run: the server's errors, if any
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctx.runtime.launcher", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    try:
        url, key = _read_banner(proc)
        yield ServerInfo(url=url, key=key, process=proc, data_dir=data_dir)
    finally:
        stop(proc, signal.SIGINT, 60)
        subprocess.run(["rm", "-rf", str(data_dir)], check=False)


def stop(proc: subprocess.Popen[Any], sig: int, timeout: float) -> None:
    """Ask a server to stop with `sig`; kill it when it has not within `timeout` seconds."""
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def _read_banner(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stdout is not None
    url = key = ""
    # A loaded machine (other runs sharing two cores) can take minutes to start everything.
    deadline = time.monotonic() + float(os.environ.get("CTX_BENCH_START_SECONDS", "180"))
    while time.monotonic() < deadline and not (url and key):
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise RuntimeError("the server exited during start-up")
        if m := re.search(r"ctx is running at (\S+)", line):
            url = m.group(1)
        if m := re.search(r"^\s+(ctx_[a-z0-9]{8}_[A-Za-z0-9]{40})\s*$", line):
            key = m.group(1)
    if not (url and key):
        raise RuntimeError("no URL and key in the server's banner")
    return url, key


def server_from_args(url: str | None, key: str | None) -> Any:
    """A context manager: the given server, or a private one when no URL is given."""
    if url:

        @contextmanager
        def given() -> Iterator[ServerInfo]:
            yield ServerInfo(url=url, key=key or os.environ.get("CTX_KEY", ""))

        return given()
    return private_server()


def start_in_process(prefix: str) -> Any:
    """Private embedded PostgreSQL and Redis, Django set up and migrated in this process (for
    benchmarks that time service code directly); returns the handles to stop them with."""
    from ctx.runtime import embedded

    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    handles = embedded.start(data_dir, temporary=True)
    os.environ.update(
        CTX_DATA_DIR=str(data_dir),
        CTX_ALLOWED_HOSTS="testserver,127.0.0.1",
        HF_HUB_OFFLINE="1",
        DJANGO_SETTINGS_MODULE="ctx.settings",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return handles
