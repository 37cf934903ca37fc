"""Traffic for the load and fault benchmarks: concurrent clients storing, querying, searching.

Each client loops over a weighted mix of operations until told to stop, optionally waiting
between requests; every request is recorded (operation, start, latency, status). A store that
the server acknowledged (200/201 with an id) is remembered with its content, so the benchmark
can count afterwards whether every acknowledged write is readable.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import percentile

TIMEOUT = 30.0  # a request still unanswered after this counts as status "timeout"
OPS = ("store", "query", "search")
WEIGHTS = (0.4, 0.3, 0.3)


@dataclass
class Sample:
    op: str
    start: float  # seconds since the traffic started
    latency: float
    status: str  # the HTTP status, "timeout" or "transport"


@dataclass
class Recorder:
    t0: float = field(default_factory=time.monotonic)
    samples: list[Sample] = field(default_factory=list)
    acknowledged: dict[str, str] = field(default_factory=dict)  # block id -> content
    scope: str | None = None  # where stores go (None: the key's home scope); may change

    def now(self) -> float:
        return time.monotonic() - self.t0


@dataclass
class Texts:
    contents: list[str]
    questions: list[str]


def _body(op: str, texts: Texts, rng: random.Random, serial: int, rec: Recorder) -> dict[str, Any]:
    if op == "store":
        # Each store a different text: the same one twice is a near-copy that dream's guard
        # archives (a `get` then answers 404 for it), which is not a lost write.
        content = f"{texts.contents[serial % len(texts.contents)]} (note {serial})"
        body = {"category": f"load{serial % 10}", "title": f"note {serial}", "content": content}
        return body | ({"scope": rec.scope} if rec.scope else {})
    return {"query": rng.choice(texts.questions), "limit": 10}


async def _one(client: httpx.AsyncClient, op: str, body: dict[str, Any], rec: Recorder) -> None:
    start = rec.now()
    status = "transport"
    try:
        resp = await client.post(f"/api/{op}", json=body)
        status = str(resp.status_code)
        if op == "store" and resp.status_code in (200, 201):
            rec.acknowledged[resp.json()["id"]] = body["content"]
    except httpx.TimeoutException:
        status = "timeout"
    except httpx.TransportError:
        pass
    rec.samples.append(Sample(op, start, rec.now() - start, status))


WARM_SERIALS = 10_000_000  # the warm-up's note numbers start here


class Serial:
    """Unique note numbers across clients (titles must not collide: each store creates)."""

    def __init__(self, start: int = 0) -> None:
        self.value = start

    def next(self) -> int:
        self.value += 1
        return self.value


async def _client_loop(
    client: httpx.AsyncClient,
    texts: Texts,
    rec: Recorder,
    stop: asyncio.Event,
    think: float,
    serial: Serial,
    seed: int,
) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        op = rng.choices(OPS, WEIGHTS)[0]
        await _one(client, op, _body(op, texts, rng, serial.next(), rec), rec)
        if think:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))


def http_client(url: str, key: str, connections: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(
        base_url=url, headers={"X-Context-Key": key}, timeout=TIMEOUT, limits=limits
    )


async def run_clients(
    url: str,
    key: str,
    texts: Texts,
    rec: Recorder,
    stop: asyncio.Event,
    *,
    clients: int,
    think: float = 0.0,
    serial: Serial | None = None,
) -> None:
    """`clients` loops over one connection pool until `stop` is set."""
    serial = serial or Serial()
    async with http_client(url, key, clients) as client:
        loops = [
            _client_loop(client, texts, rec, stop, think, serial, seed) for seed in range(clients)
        ]
        await asyncio.gather(*loops)


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    """Per operation: count, statuses, p50/p95 latency in ms of the successful requests, p95
    of the failed ones (how long a client waited for its error), the slowest of all."""
    out: dict[str, Any] = {}
    for op in sorted({s.op for s in samples}):
        mine = [s for s in samples if s.op == op]
        ok = [s.latency * 1000 for s in mine if s.status.startswith("2")]
        failed = [s.latency * 1000 for s in mine if not s.status.startswith("2")]
        out[op] = {
            "requests": len(mine),
            "statuses": dict(Counter(s.status for s in mine)),
            "p50_ms": round(percentile(ok, 50), 1),
            "p95_ms": round(percentile(ok, 95), 1),
            "error_p95_ms": round(percentile(failed, 95), 1) if failed else None,
            "max_ms": round(max((s.latency * 1000 for s in mine), default=0.0), 1),
        }
    return out


def errors(samples: Sequence[Sample]) -> dict[str, int]:
    """Failed requests by status (anything but 2xx)."""
    return dict(Counter(s.status for s in samples if not s.status.startswith("2")))


async def _read_back(client: httpx.AsyncClient, block_id: str) -> httpx.Response | None:
    """The block's `get`, retried while the server answers 5xx or not at all (it may still be
    recovering); None if it never answered."""
    for attempt in range(10):
        try:
            resp = await client.post("/api/manage", json={"action": "get", "id": block_id})
            if resp.status_code < 500:
                return resp
        except httpx.TransportError:
            pass
        await asyncio.sleep(min(5.0, 0.5 * 2**attempt))
    return None


async def verify(
    url: str, key: str, acknowledged: dict[str, str], data_dir: Path | None = None
) -> dict[str, Any]:
    """Read every acknowledged block back: stored (same content), masked (kept, but shown
    redacted to this key), changed, missing (404) or unreadable (the server never answered the
    read). With the private server's data dir, a
    404 is looked up in its database: archived by dream's guard as a near-copy, or absent."""
    found = Counter[str]()
    not_found: list[str] = []
    examples: list[dict[str, Any]] = []  # the first changed blocks, to see what changed
    sem = asyncio.Semaphore(8)

    async def check(client: httpx.AsyncClient, block_id: str, content: str) -> None:
        async with sem:
            resp = await _read_back(client, block_id)
        if resp is None:
            found["unreadable"] += 1
        elif resp.status_code != 200:
            not_found.append(block_id)
        elif str(resp.json()["block"]["content"]).startswith("[redacted:"):
            # The detector raised the block's sensitivity above the key's (a URL with a long
            # random path once counted as a credential): kept, shown to this key masked.
            found["masked"] += 1
        elif resp.json()["block"]["content"] != content:
            found["changed"] += 1
            block = resp.json()["block"]
            examples.append(
                {
                    "id": block_id,
                    "acknowledged": content[:120],
                    "read": str(block["content"])[:120],
                    **{k: block.get(k) for k in ("title", "category", "sensitivity", "archived")},
                }
            )
        else:
            found["stored"] += 1

    async with http_client(url, key, 8) as client:
        await asyncio.gather(*(check(client, i, c) for i, c in acknowledged.items()))
    archived = archived_ids(data_dir, not_found) if data_dir and not_found else set()
    found["archived"] = len(archived)
    found["missing"] = len(not_found) - len(archived)
    kinds = ("stored", "masked", "missing", "archived", "changed", "unreadable")
    shown = {"changed_examples": examples[:5]} if examples else {}
    return {"acknowledged": len(acknowledged), **{k: found[k] for k in kinds}, **shown}


def archived_ids(data_dir: Path, ids: list[str]) -> set[str]:
    """Which of `ids` exist in the private server's database, archived."""
    import psycopg

    from ctx.runtime.embedded import socket_dir_of

    host = str(socket_dir_of(data_dir / "pg"))
    with psycopg.connect(host=host, dbname="postgres", user="postgres") as conn:
        rows = conn.execute(
            "SELECT id::text FROM ctx_block WHERE archived AND id = ANY(%s::uuid[])", [ids]
        ).fetchall()
    return {r[0] for r in rows}


def warm_up(url: str, key: str, texts: Texts, clients: int = 6) -> None:
    """Load every web worker's models before the clock starts (not recorded): 15 s of
    traffic, then until ten queries in a row answered within 2 s (at most 180 s more; a cold
    start exported the query encoder for most of a minute on a busy machine)."""
    rec = Recorder()
    stop = asyncio.Event()

    async def go() -> None:
        asyncio.get_running_loop().call_later(15, stop.set)
        # Titles of their own: the measured run numbers its notes from 1 again, and a warm-up
        # store of the same title still running on a cold server (its client gave up) once
        # overwrote a measured one (counted "changed").
        await run_clients(url, key, texts, rec, stop, clients=clients, serial=Serial(WARM_SERIALS))

    asyncio.run(go())
    streak, deadline = 0, time.monotonic() + 180
    with httpx.Client(base_url=url, headers={"X-Context-Key": key}, timeout=60) as c:
        while streak < 10 and time.monotonic() < deadline:
            start = time.monotonic()
            try:
                resp = c.post("/api/query", json={"query": texts.questions[streak], "limit": 10})
                fast = resp.status_code == 200 and time.monotonic() - start < 2
            except httpx.TransportError:
                fast = False
            streak = streak + 1 if fast else 0
