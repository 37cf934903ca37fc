"""XQuAD-R through a running server: does full text in English and German stay as good?

    python bench/xquad_server.py [--url U --key K] [--limit-questions N] [--out results.json]

The 240 paragraphs of each language are stored as blocks in a scope of their own (`xq-en`,
`xq-de`; neutral titles, so the title arm cannot help) and embedded by the server's worker.
Each question is then asked in its own language through `/api/query` (every arm, fused) and
`/api/search` (full text and titles only, no model), and scored by the rank of its paragraph:
recall@1/5/10 and MRR. Nothing in ctx was tuned on this data; the questions are still split
by position (even = dev, odd = held-out) so a later tuning has a half to report on.
Without --url a private server is started from this checkout (bench.common.private_server).
Data: ../shared/eval/data/xquad-r.{de,en}.json (never copied into the repository).
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
from bench.common import emit, machine, server_from_args
from bench.query_latency import wait_embedded
from bench.xquad import load

LANGS = ("en", "de")
ENDPOINTS = ("/api/query", "/api/search")
CUTS = (1, 5, 10)


def store(client: httpx.Client, lang: str, paragraphs: list[str]) -> None:
    scope = f"xq-{lang}"
    client.post("/api/admin/scopes", json={"name": scope})
    blocks = [
        {"category": "xquad", "title": f"paragraph {lang} {i}", "content": text}
        for i, text in enumerate(paragraphs)
    ]
    for start in range(0, len(blocks), 100):
        batch = {"scope": scope, "blocks": blocks[start : start + 100]}
        client.post("/api/store/batch", json=batch).raise_for_status()


def rank_of(client: httpx.Client, endpoint: str, lang: str, question: str, gold: int) -> int:
    """1-based rank of the gold paragraph among the first 10, 0 when it is not there."""
    body: dict[str, Any] = {"query": question, "scope": f"xq-{lang}", "limit": 10}
    if endpoint == "/api/query":
        body["synthesize"] = False
    resp = client.post(endpoint, json=body)
    resp.raise_for_status()
    data = resp.json()
    hits = data.get("sources", data.get("results", []))
    want = f"paragraph {lang} {gold}"
    return next((i for i, h in enumerate(hits, 1) if h["title"] == want), 0)


def metrics(ranks: list[int]) -> dict[str, float]:
    n = max(len(ranks), 1)
    out = {f"recall@{k}": round(sum(0 < r <= k for r in ranks) / n, 4) for k in CUTS}
    out["mrr@10"] = round(sum(1 / r for r in ranks if r) / n, 4)
    out["questions"] = len(ranks)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url")
    ap.add_argument("--key")
    ap.add_argument("--limit-questions", type=int, default=0, help="per language; 0 = all")
    ap.add_argument("--out")
    args = ap.parse_args()
    data = {lang: load(lang) for lang in LANGS}
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    runs: dict[str, dict[str, Any]] = {}
    with (
        server_from_args(args.url, args.key) as srv,
        httpx.Client(base_url=srv.url, headers={"X-Context-Key": srv.key}, timeout=600) as client,
    ):
        for lang, (paragraphs, _questions) in data.items():
            store(client, lang, paragraphs)
        for lang in LANGS:
            wait_embedded(client, f"xq-{lang}")
        for endpoint in ENDPOINTS:
            for lang, (_paragraphs, questions) in data.items():
                asked = questions[: args.limit_questions or None]
                ranks = [rank_of(client, endpoint, lang, q, gold) for q, gold in asked]
                runs[f"{endpoint} {lang}"] = {
                    "all": metrics(ranks),
                    "dev": metrics(ranks[0::2]),
                    "heldout": metrics(ranks[1::2]),
                    "ranks": ranks,
                }
                print(endpoint, lang, runs[f"{endpoint} {lang}"]["all"], file=sys.stderr)
    result = {
        "benchmark": "xquad_server",
        "machine": machine(),
        "load1_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "seconds": round(time.perf_counter() - started, 1),
        "runs": runs,
    }
    summary = "; ".join(
        f"{name} r@1 {r['all']['recall@1']} r@5 {r['all']['recall@5']} mrr {r['all']['mrr@10']}"
        for name, r in runs.items()
    )
    emit(result, f"xquad_server: {summary}", args.out)


if __name__ == "__main__":
    main()
