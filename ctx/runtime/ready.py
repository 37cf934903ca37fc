"""Readiness between `make run`'s launcher and the processes it starts.

The launcher names a file in each child's CTX_READY_FILE; each of the child's processes touches
`<file>.<pid>` once it can do its work (a uvicorn worker once its embedder is loaded, a Celery
worker once it consumes, beat once it schedules). The launcher prints its banner, with the
once-only bootstrap key, after all of them, so that nothing a child prints while starting comes
after the key. Without the variable (tests, compose) nothing is written or warmed.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

ENV = "CTX_READY_FILE"

log = logging.getLogger("ctx.runtime.ready")


def announce(**_: object) -> None:
    """Touch this process's ready file, if the launcher asked for one (a Celery signal handler)."""
    path = os.environ.get(ENV)
    if path:
        Path(f"{path}.{os.getpid()}").touch()


def announce_after(warm: Callable[[], None]) -> None:
    """Run `warm` on a thread of its own, then announce: the server answers meanwhile. A failed
    warm-up is logged and announced all the same (the first request then pays for it)."""

    def run() -> None:
        try:
            warm()
        except Exception:
            log.warning("warming up failed; the first request loads it", exc_info=True)
        finally:
            announce()

    if os.environ.get(ENV):
        threading.Thread(target=run, name="ctx-warm-up", daemon=True).start()


def announced(path: Path) -> int:
    """How many processes announced themselves for `path`."""
    return len(list(path.parent.glob(path.name + ".*")))


def wait(
    files: Mapping[str, tuple[Path, int]],
    procs: list[subprocess.Popen[bytes]],
    timeout: float,
) -> list[str]:
    """Wait until each name's file was announced by its number of processes (uvicorn's
    workers each warm up); return the names still short after `timeout` (the launcher then
    says so rather than withhold the key). Raises if a process exited."""
    deadline = time.monotonic() + timeout
    while True:
        missing = [name for name, (path, n) in files.items() if announced(path) < n]
        if not missing or time.monotonic() >= deadline:
            return missing
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a server process exited during start-up")
        time.sleep(0.2)
