"""The launcher's process tree as /proc shows it: used by the supervisor tests and the fault
benchmark (bench/faults.py), which kill children by role and check what is left."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path


def children(pid: int) -> dict[int, str]:
    """pid -> command line of the processes whose parent is `pid`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_text().replace("\0", " ")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(entry.name)] = cmdline
    return found


def role(cmdline: str) -> str | None:
    """The launcher child a command line is: redis, web, worker, ingest (the conversation-import
    worker) or beat."""
    if "redis-server" in cmdline:
        return "redis"
    if "uvicorn" in cmdline:
        return "web"
    if "celery" not in cmdline:
        return None
    if " worker " in cmdline:
        return "ingest" if "--queues ingest" in cmdline else "worker"
    return "beat" if " beat " in cmdline else None


def roles(launcher: int) -> dict[str, int]:
    """role -> pid of the launcher's children."""
    return {name: pid for pid, cmd in children(launcher).items() if (name := role(cmd))}


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent counts as gone)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until(predicate: Callable[[], object], timeout: float, step: float = 0.2) -> bool:
    """Poll `predicate` until it is true (True) or `timeout` seconds passed (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False
