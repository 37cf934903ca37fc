"""`make run`'s children kept alive: a crashed worker, beat, web server or embedded Redis is
started again with back-off while the others keep running; only Ctrl-C / SIGTERM stops them.

Before, the launcher stopped web, beat and PostgreSQL as soon as one child died, and the
embedded Redis dying went unnoticed until every background job failed. Each child now runs in
a session of its own, so that its leftovers (uvicorn's workers, Celery's pool processes,
orphaned when their parent was killed) can be ended with it before it is started again, and so
that Ctrl-C reaches the launcher alone, which stops the children in order.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Popen = subprocess.Popen[bytes]

FIRST_DELAY = 1.0  # seconds before the first restart of a crashed child
MAX_DELAY = 30.0  # the back-off doubles up to this while the child keeps crashing
STABLE_AFTER = 60.0  # a child that ran this long counts as healthy again: back to FIRST_DELAY
STOP_GRACE = 15.0  # seconds a child may take to stop on SIGTERM before it is killed

# What an operator reads when a child is down, about the rest of the server.
MEANWHILE = {
    "redis": "the web server keeps answering; new blocks are embedded once it is back",
    "worker": "the web server keeps answering; embeddings and dreaming resume once it is back",
    "ingest": "the web server keeps answering; conversation imports resume once it is back",
    "beat": "the web server keeps answering; periodic jobs resume once it is back",
    "web": "workers and beat keep running; requests fail until it is back",
}


def say(message: str) -> None:
    print(f"ctx: {message}", file=sys.stderr, flush=True)


@dataclass
class Child:
    """One supervised process: how to start it, and its restart bookkeeping."""

    name: str
    start: Callable[[], Popen]
    proc: Popen | None = None
    started_at: float = 0.0
    restarts: int = 0
    crashes: int = 0  # consecutive crashes without a stable run in between
    due: float | None = None  # when a crashed child is started again

    def launch(self) -> None:
        self.proc = self.start()
        self.started_at = time.monotonic()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def session() -> bool:
    """Popen's start_new_session for a child: a session (and process group) of its own, so the
    supervisor can end the child's own children with it."""
    return True


def _end_group(pid: int) -> None:
    """Kill what is left of a child's process group (its own children, orphaned)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _describe(code: int) -> str:
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def delay(crashes: int) -> float:
    """Back-off before the restart after `crashes` consecutive crashes: 1, 2, 4 … 30 s."""
    return min(MAX_DELAY, FIRST_DELAY * 2 ** max(0, crashes - 1))


@dataclass
class Supervisor:
    children: list[Child] = field(default_factory=list)

    def add(self, child: Child) -> Child:
        self.children.append(child)
        return child

    def start_all(self) -> None:
        for child in self.children:
            child.launch()

    def pids(self) -> dict[str, int]:
        return {c.name: c.proc.pid for c in self.children if c.running() and c.proc}

    def poll(self) -> None:
        """Notice crashed children and start the ones whose back-off has passed."""
        now = time.monotonic()
        for child in self.children:
            if child.due is None and not child.running():
                self._crashed(child, now)
            elif child.due is not None and now >= child.due:
                self._restart(child, now)

    def _crashed(self, child: Child, now: float) -> None:
        assert child.proc is not None
        code = child.proc.returncode
        _end_group(child.proc.pid)
        stable = now - child.started_at >= STABLE_AFTER
        child.crashes = 1 if stable else child.crashes + 1
        wait = delay(child.crashes)
        child.due = now + wait
        say(
            f"{child.name} (pid {child.proc.pid}) {_describe(code)}; restarting in {wait:.0f} s; "
            f"{MEANWHILE.get(child.name, 'the others keep running')}"
        )

    def _restart(self, child: Child, now: float) -> None:
        child.due = None
        child.restarts += 1
        try:
            child.launch()
        except Exception as exc:  # e.g. Redis did not come up: try again after the back-off
            child.crashes += 1
            child.due = now + delay(child.crashes)
            say(f"{child.name} did not start ({exc}); next attempt in {delay(child.crashes):.0f} s")
            return
        assert child.proc is not None
        say(f"{child.name} restarted (pid {child.proc.pid}, restart {child.restarts})")

    def stop(self, names: list[str]) -> None:
        """SIGTERM to the named children, wait for them, kill what remains of them."""
        chosen = [c for c in self.children if c.name in names and c.proc is not None]
        for child in chosen:
            child.due = None
            if child.running():
                assert child.proc is not None
                child.proc.send_signal(signal.SIGTERM)
        for child in chosen:
            assert child.proc is not None
            try:
                child.proc.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                child.proc.kill()
                child.proc.wait()
            _end_group(child.proc.pid)
