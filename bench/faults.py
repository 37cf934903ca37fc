"""Faults under light traffic: what clients see while Redis, Celery or PostgreSQL misbehave.

    python bench/faults.py [--faults redis-pause,redis-kill,...] [--clients 4] [--out FILE]

For each fault a private server starts the way `make run` does (the launcher on a fresh data
dir: embedded PostgreSQL and Redis, two web workers, the Celery worker and beat), light traffic
runs (a few clients storing, querying and searching with pauses), and after 10 s the fault:

    redis-pause     the embedded redis-server stopped (SIGSTOP) for 40 s, then continued
    redis-kill      the embedded redis-server killed (SIGKILL)
    worker-kill     one Celery pool process killed (SIGKILL)
    master-kill     the Celery worker's main process killed (SIGKILL)
    beat-kill       Celery beat killed (SIGKILL)
    pg-restart      PostgreSQL restarted (pg_ctl restart -m fast)
    pg-stop         PostgreSQL stopped for 20 s (pg_ctl stop -m fast), then started

Traffic goes on for 30 s after the fault ended. Reported per fault: errors by status and
p50/p95 per operation during the fault and overall, the slowest error answer, acknowledged
against stored writes (every store answered 200/201 is read back), when requests succeeded
again after the fault ended, when the embedding backlog was drained after it ended, whether
ctx itself kept running (the launcher and the web server's process), and which of its
processes were replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ServerInfo, emit, private_server
from bench.load import awaiting
from bench.store_search import corpus
from bench.traffic import (
    Recorder,
    Sample,
    Texts,
    errors,
    run_clients,
    summarize,
    verify,
    warm_up,
)
from ctx.runtime.embedded import postgres_ctl, socket_dir_of
from tests.support.processes import children, roles

BEFORE = 10.0  # seconds of traffic before the fault
AFTER = 30.0  # seconds of traffic after it ended
DRAIN_LIMIT = 120.0  # longest wait for the embedding backlog after the fault


# --- the server's processes -------------------------------------------------------------------


def processes(launcher: int) -> dict[str, int]:
    """role -> pid of the launcher's children (redis, web, worker, ingest, beat)."""
    return roles(launcher)


# --- faults -------------------------------------------------------------------------------------


@dataclass
class Fault:
    name: str
    apply: Callable[[ServerInfo], None]  # blocks until the fault is over (or at once)


def _signal(server: ServerInfo, name: str, sig: int) -> None:
    assert server.process is not None
    os.kill(processes(server.process.pid)[name], sig)


def _redis_pause(server: ServerInfo) -> None:
    _signal(server, "redis", signal.SIGSTOP)
    try:
        time.sleep(40)
    finally:
        _signal(server, "redis", signal.SIGCONT)


def _pool_process(server: ServerInfo) -> int:
    assert server.process is not None
    master = processes(server.process.pid)["worker"]
    return min(children(master))


def _pg_stop(server: ServerInfo) -> None:
    assert server.data_dir is not None
    pgdata = server.data_dir / "pg"
    sockets = socket_dir_of(pgdata)
    postgres_ctl(pgdata, "stop")
    time.sleep(20)
    postgres_ctl(pgdata, "start", socket_dir=sockets)


def _pg_restart(server: ServerInfo) -> None:
    assert server.data_dir is not None
    postgres_ctl(server.data_dir / "pg", "restart")


FAULTS = {
    f.name: f
    for f in (
        Fault("redis-pause", _redis_pause),
        Fault("redis-kill", lambda s: _signal(s, "redis", signal.SIGKILL)),
        Fault("worker-kill", lambda s: os.kill(_pool_process(s), signal.SIGKILL)),
        Fault("master-kill", lambda s: _signal(s, "worker", signal.SIGKILL)),
        Fault("beat-kill", lambda s: _signal(s, "beat", signal.SIGKILL)),
        Fault("pg-restart", _pg_restart),
        Fault("pg-stop", _pg_stop),
    )
}


# --- one run ------------------------------------------------------------------------------------


@dataclass
class Window:
    start: float  # fault applied, seconds since the traffic started
    end: float  # fault over


def recovered_after(samples: list[Sample], window: Window, traffic_end: float) -> float | None:
    """Seconds from the fault's end until requests succeeded again: the end of the last failed
    request (0 if none failed after the end); None if they still failed near the traffic end."""
    failed = [s for s in samples if not s.status.startswith("2") and s.start >= window.start]
    if not failed:
        return 0.0
    last = max(s.start + s.latency for s in failed)
    if last > traffic_end - 5:
        return None
    return round(max(0.0, last - window.end), 1)


AFTER_SCOPE = "faults-after"  # stores after the fault go here: the backlog is the home scope's


def wait_drained(server: ServerInfo, scope: str, since: float) -> float | None:
    """Seconds from `since` (monotonic) until no block of `scope` (written up to the fault's
    end) awaits its embedding; None past DRAIN_LIMIT."""
    headers = {"X-Context-Key": server.key}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as c:
        while time.monotonic() - since < DRAIN_LIMIT:
            if awaiting(c, scope) == 0:
                return round(time.monotonic() - since, 1)
            time.sleep(0.5)
    return None


def home_scope(server: ServerInfo) -> str:
    """The key's home scope; also creates AFTER_SCOPE for the stores after the fault."""
    headers = {"X-Context-Key": server.key}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as c:
        c.post("/api/admin/scopes", json={"name": AFTER_SCOPE}).raise_for_status()
        return str(c.get("/api/whoami").json()["home_scope"])


@dataclass
class Outcome:
    rec: Recorder
    window: Window
    drained: float | None


async def _traffic_with_fault(
    server: ServerInfo, fault: Fault, texts: Texts, clients: int
) -> Outcome:
    home = home_scope(server)
    rec = Recorder()
    stop = asyncio.Event()
    traffic = asyncio.create_task(
        run_clients(server.url, server.key, texts, rec, stop, clients=clients, think=0.25)
    )
    await asyncio.sleep(BEFORE)
    start = rec.now()
    await asyncio.to_thread(fault.apply, server)
    window = Window(start, rec.now())
    rec.scope = AFTER_SCOPE
    drained = asyncio.create_task(asyncio.to_thread(wait_drained, server, home, time.monotonic()))
    await asyncio.sleep(AFTER)
    stop.set()
    await traffic
    return Outcome(rec, window, await drained)


def during(samples: list[Sample], window: Window) -> list[Sample]:
    """Requests started while the fault lasted (and in the 5 s after it: a kill's effects)."""
    return [s for s in samples if window.start <= s.start <= window.end + 5]


def run_fault(fault: Fault, texts: Texts, warm_texts: Texts, clients: int) -> dict[str, Any]:
    with private_server(workers=2, prefix=f"ctx-fault-{fault.name}-") as server:
        assert server.process is not None
        warm_up(server.url, server.key, warm_texts)
        before = processes(server.process.pid)
        out = asyncio.run(_traffic_with_fault(server, fault, texts, clients))
        rec, window = out.rec, out.window
        writes = asyncio.run(verify(server.url, server.key, rec.acknowledged, server.data_dir))
        after = processes(server.process.pid)
        launcher_alive = server.process.poll() is None
    return {
        "fault": fault.name,
        "fault_seconds": round(window.end - window.start, 1),
        "requests": len(rec.samples),
        "errors": errors(rec.samples),
        "errors_during_fault": errors(during(rec.samples, window)),
        "slowest_error_ms": _slowest_error(rec.samples),
        "during_fault": summarize(during(rec.samples, window)),
        "overall": summarize(rec.samples),
        "writes": writes,
        "recovered_after_s": recovered_after(rec.samples, window, rec.now()),
        "backlog_drained_after_s": out.drained,
        "ctx_kept_running": launcher_alive and after.get("web") == before.get("web"),
        "replaced": sorted(r for r in before if after.get(r) != before[r]),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def _slowest_error(samples: list[Sample]) -> float | None:
    failed = [s.latency * 1000 for s in samples if not s.status.startswith("2")]
    return round(max(failed), 1) if failed else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--out")
    args = parser.parse_args()
    contents, questions = corpus(4000)
    texts = Texts(contents=contents[:3000], questions=questions)
    warm_texts = Texts(contents=contents[3000:], questions=questions)
    load_before = os.getloadavg()
    results = []
    for name in args.faults.split(","):
        results.append(run_fault(FAULTS[name], texts, warm_texts, args.clients))
        if args.out:  # a long run keeps what it measured so far
            Path(args.out + ".partial").write_text(json.dumps(results, indent=2, default=str))
    result = {
        "benchmark": "faults",
        "clients": args.clients,
        "think_s": 0.25,
        "load_average_before": [round(x, 2) for x in load_before],
        "faults": results,
    }
    emit(result, _summary(results), args.out)


def _summary(results: list[dict[str, Any]]) -> str:
    parts = []
    for r in results:
        lost = r["writes"]["missing"] + r["writes"]["changed"] + r["writes"]["unreadable"]
        parts.append(
            f"{r['fault']}: {sum(r['errors'].values())} errors, lost {lost}, "
            f"recovered {r['recovered_after_s']} s, drained {r['backlog_drained_after_s']} s, "
            f"{'kept running' if r['ctx_kept_running'] else 'ctx DOWN'}"
        )
    return "faults: " + "; ".join(parts)


if __name__ == "__main__":
    main()
