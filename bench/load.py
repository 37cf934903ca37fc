"""Concurrent load: N clients storing, querying and searching for a fixed time, loopback only.

    python bench/load.py [--clients 50] [--seconds 60] [--seed-blocks 1000] [--out FILE]
                         [--url U --key K]

Without --url it starts a private server the way `make run` does (the launcher, embedded
PostgreSQL and Redis, two web workers, the Celery worker and beat) on a fresh data dir, seeds it
with LongMemEval user turns, warms both web workers up, then runs the clients without pauses:
40% stores (new blocks), 30% queries, 30% searches. Reported: requests and errors by status,
p50/p95 per operation (client wall time over loopback, successful requests), and acknowledged
against stored writes: every store answered 200/201 is read back afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ServerInfo, emit, private_server
from bench.store_search import corpus
from bench.traffic import (
    Recorder,
    Serial,
    Texts,
    errors,
    run_clients,
    summarize,
    verify,
    warm_up,
)


def seed(server: ServerInfo, texts: Texts, blocks: int) -> None:
    """Store `blocks` turns in batches and wait (≤ 180 s) until the worker embedded them."""
    with httpx.Client(base_url=server.url, headers={"X-Context-Key": server.key}, timeout=120) as c:
        for start in range(0, blocks, 500):
            items = [
                {"category": "seed", "title": f"seed {i}", "content": texts.contents[i]}
                for i in range(start, min(blocks, start + 500))
            ]
            c.post("/api/store/batch", json={"blocks": items}).raise_for_status()
        wait_embedded(c, 180)


def awaiting(c: httpx.Client, scope: str | None = None) -> int | None:
    """Blocks of the key's scopes (or of `scope`) without an embedding; None when the server
    did not say."""
    try:
        resp = c.post("/api/manage", json={"action": "stats"} | ({"scope": scope} if scope else {}))
    except httpx.TransportError:
        return None
    if resp.status_code != 200:
        return None
    return int(resp.json()["stats"]["awaiting_embedding"])


def wait_embedded(c: httpx.Client, limit: float) -> float | None:
    """Seconds until no block awaits its embedding, or None if that took longer than `limit`."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if awaiting(c) == 0:
            return round(time.monotonic() - start, 1)
        time.sleep(0.5)
    return None


async def timed_run(
    server: ServerInfo, texts: Texts, clients: int, seconds: float, serial: Serial
) -> Recorder:
    rec = Recorder()
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    await run_clients(server.url, server.key, texts, rec, stop, clients=clients, serial=serial)
    return rec


def measure(server: ServerInfo, texts: Texts, args: argparse.Namespace) -> dict[str, Any]:
    warm_up(server.url, server.key, Texts(texts.contents[-500:], texts.questions))
    serial = Serial()
    load_before = os.getloadavg()
    rec = asyncio.run(timed_run(server, texts, args.clients, args.seconds, serial))
    load_after = os.getloadavg()
    writes = asyncio.run(verify(server.url, server.key, rec.acknowledged, server.data_dir))
    with httpx.Client(base_url=server.url, headers={"X-Context-Key": server.key}, timeout=60) as c:
        drained = wait_embedded(c, 180)
    return {
        "clients": args.clients,
        "seconds": args.seconds,
        "requests": len(rec.samples),
        "throughput_per_s": round(len(rec.samples) / args.seconds, 1),
        "errors": errors(rec.samples),
        "operations": summarize(rec.samples),
        "writes": writes,
        "embedding_backlog_drained_s": drained,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed-blocks", type=int, default=1000)
    parser.add_argument("--url")
    parser.add_argument("--key")
    parser.add_argument("--out")
    args = parser.parse_args()
    contents, questions = corpus(args.seed_blocks + 4000)
    texts = Texts(contents=contents[args.seed_blocks :], questions=questions)
    seed_texts = Texts(contents=contents[: args.seed_blocks], questions=questions)
    if args.url:
        server = ServerInfo(url=args.url, key=args.key or os.environ.get("CTX_KEY", ""))
        result = measure(server, texts, args)
    else:
        with private_server(workers=2, prefix="ctx-load-") as server:
            seed(server, seed_texts, args.seed_blocks)
            result = measure(server, texts, args)
    emit({"benchmark": "load", **result}, _summary(result), args.out)


def _summary(r: dict[str, Any]) -> str:
    ops = r["operations"]
    p95 = ", ".join(f"{op} p95 {ops[op]['p95_ms']:.0f} ms" for op in sorted(ops))
    w = r["writes"]
    return (
        f"load: {r['clients']} clients {r['seconds']:.0f} s: {r['requests']} requests "
        f"({r['throughput_per_s']}/s), errors {sum(r['errors'].values())} {r['errors']}; {p95}; "
        f"writes acknowledged {w['acknowledged']}, lost {w['missing'] + w['changed']}, "
        f"archived as near-copies {w['archived']}, unreadable {w['unreadable']}"
    )


if __name__ == "__main__":
    main()
