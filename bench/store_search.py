"""Store N blocks through /api/store, then time /api/search: stores/s and search p50/p95.

    python bench/store_search.py [--blocks 10000] [--queries 300] [--url U --key K]

Without --url it starts a private server (embedded PostgreSQL and Redis) on a fresh data dir.
Texts are LongMemEval user turns (../shared/eval/data), so lengths and vocabulary are real.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import EVAL_DATA, emit, percentile, server_from_args


def corpus(n: int) -> tuple[list[str], list[str]]:
    """n distinct user turns (≤ 2,000 chars) and the questions, as realistic texts."""
    with gzip.open(EVAL_DATA / "longmemeval_s_cleaned_499of500.json.gz", "rt") as fh:
        entries = json.load(fh)
    texts: dict[str, None] = {}
    questions = [e["question"] for e in entries]
    for entry in entries:
        for session in entry["haystack_sessions"]:
            for turn in session:
                if turn["role"] == "user" and 20 < len(turn["content"]) <= 2000:
                    texts[turn["content"]] = None
            if len(texts) >= n:
                return list(texts)[:n], questions
    return list(texts), questions


def store_all(client: httpx.Client, texts: list[str], concurrency: int) -> float:
    def one(i: int) -> None:
        body = {
            "category": f"cat{i % 20}",
            "title": f"turn {i}: {texts[i][:60]}",
            "content": texts[i],
            "tags": [f"t{i % 7}"],
        }
        resp = client.post("/api/store", json=body)
        resp.raise_for_status()

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(len(texts))))
    return time.perf_counter() - start


def time_searches(client: httpx.Client, questions: list[str]) -> list[float]:
    timings = []
    for q in questions:
        start = time.perf_counter()
        resp = client.post("/api/search", json={"query": q, "limit": 10})
        resp.raise_for_status()
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--blocks", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--url")
    ap.add_argument("--key")
    ap.add_argument("--out")
    args = ap.parse_args()
    texts, questions = corpus(args.blocks)
    with server_from_args(args.url, args.key) as srv:
        headers = {"X-Context-Key": srv.key}
        with httpx.Client(base_url=srv.url, headers=headers, timeout=60) as client:
            elapsed = store_all(client, texts, args.concurrency)
            time_searches(client, questions[:20])  # warm caches and connections
            timings = time_searches(client, questions[: args.queries])
    result = {
        "benchmark": "store_search",
        "blocks": len(texts),
        "store_concurrency": args.concurrency,
        "stores_per_s": round(len(texts) / elapsed, 1),
        "search_queries": len(timings),
        "search_p50_ms": round(percentile(timings, 50), 2),
        "search_p95_ms": round(percentile(timings, 95), 2),
    }
    emit(
        result,
        f"store_search: {result['stores_per_s']} stores/s; /api/search at "
        f"{len(texts)} blocks p50 {result['search_p50_ms']} ms, p95 {result['search_p95_ms']} ms",
        args.out,
    )


if __name__ == "__main__":
    main()
