"""`/api/query` latency at 10k and 100k blocks, store throughput and embedding throughput.

    python bench/query_latency.py [--sizes 10000,100000] [--queries 200] [--url U --key K]
    python bench/query_latency.py --timing-only --url U --key K [--offset 250]  # stored scope

Blocks are LongMemEval user turns stored through `/api/store/batch` into one scope; the
server's own Celery worker embeds them (embeddings/s is measured from the store to the last
vector). Latency is the server's `timing_ms.total` (retrieval only: no synthesis, no rerank
backend) and the client's wall time, sequential queries after a warm-up.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile, server_from_args
from bench.store_search import corpus

BATCH = 500


def store(client: httpx.Client, scope: str, texts: list[str], offset: int) -> float:
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        blocks = [
            {
                "category": f"cat{(offset + i) % 20}",
                "title": f"turn {offset + i}: {t[:60]}",
                "content": t,
            }
            for i, t in enumerate(texts[start : start + BATCH], start=start)
        ]
        client.post("/api/store/batch", json={"scope": scope, "blocks": blocks}).raise_for_status()
    return time.perf_counter() - started


def wait_embedded(client: httpx.Client, scope: str, timeout: float = 7200) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        stats = client.post("/api/manage", json={"action": "stats", "scope": scope}).json()
        if stats["stats"]["awaiting_embedding"] == 0:
            return time.perf_counter() - started
        time.sleep(1)
    raise TimeoutError("embedding did not finish")


def time_queries(client: httpx.Client, scope: str, questions: list[str]) -> dict[str, Any]:
    """Each question once (its vector is not cached yet: the model runs, as for a new
    question); the server's timing_ms parts are reported too, and the load average."""
    server, wall = [], []
    parts: dict[str, list[float]] = {}
    for q in questions:
        started = time.perf_counter()
        resp = client.post("/api/query", json={"query": q, "scope": scope, "limit": 10})
        wall.append((time.perf_counter() - started) * 1000)
        timing = resp.json()["timing_ms"]
        server.append(timing["total"])
        for name, ms in timing.items():
            parts.setdefault(name, []).append(ms)
    return {
        "server_p50_ms": round(percentile(server, 50), 2),
        "server_p95_ms": round(percentile(server, 95), 2),
        "client_p50_ms": round(percentile(wall, 50), 2),
        "client_p95_ms": round(percentile(wall, 95), 2),
        "server_parts_p50_ms": {k: round(percentile(v, 50), 2) for k, v in parts.items()},
        "load1": round(os.getloadavg()[0], 2),
    }


def timed_only(
    client: httpx.Client, questions: list[str], queries: int, offset: int = 20
) -> dict[str, Any]:
    """The latency row of a scope stored by an earlier run (after a change to the server).
    The server caches question vectors: an `offset` past the questions timed before times
    new questions, whose embedding is part of the request."""
    stats = client.post("/api/manage", json={"action": "stats", "scope": "bench"}).json()
    time_queries(client, "bench", questions[:20])  # warm-up
    return {
        "blocks": stats["stats"]["blocks"],
        "awaiting_embedding": stats["stats"]["awaiting_embedding"],
        "questions": [offset, offset + queries],
        **time_queries(client, "bench", questions[offset : offset + queries]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--offset", type=int, default=20, help="with --timing-only: the first question timed"
    )
    ap.add_argument("--url")
    ap.add_argument("--key")
    ap.add_argument("--out")
    ap.add_argument(
        "--timing-only",
        action="store_true",
        help="time queries on the server's existing 'bench' scope (store nothing; --url needed)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    texts, questions = corpus(max(sizes))
    results: list[dict[str, Any]] = []
    with (
        server_from_args(args.url, args.key) as srv,
        httpx.Client(base_url=srv.url, headers={"X-Context-Key": srv.key}, timeout=600) as client,
    ):
        client.post("/api/admin/scopes", json={"name": "bench"})
        have = 0
        if args.timing_only:
            sizes, results = [], [timed_only(client, questions, args.queries, args.offset)]
        for size in sizes:
            chunk = texts[have:size]
            stored_s = store(client, "bench", chunk, have)
            embed_s = wait_embedded(client, "bench")
            have = size
            time_queries(client, "bench", questions[:20])  # warm-up
            row = {
                "blocks": size,
                "stored": len(chunk),
                "stores_per_s": round(len(chunk) / stored_s, 1),
                "embedded_per_s": round(len(chunk) / (stored_s + embed_s), 1),
                **time_queries(client, "bench", questions[20 : 20 + args.queries]),
            }
            results.append(row)
            print(row, file=sys.stderr)
    summary = "; ".join(
        f"{r['blocks']} blocks: p50 {r['server_p50_ms']} ms p95 {r['server_p95_ms']} ms (server)"
        for r in results
    )
    emit({"benchmark": "query_latency", "results": results}, f"query_latency: {summary}", args.out)


if __name__ == "__main__":
    main()
