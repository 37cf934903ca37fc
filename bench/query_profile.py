"""Where one `/api/query` spends its time, in-process: every SQL statement timed, cProfile.

    python bench/query_profile.py [--blocks 10000] [--small 50] [--queries 60]
                                  [--precision bf16] [--profile PATH]

A private embedded PostgreSQL gets --blocks LongMemEval user turns in one scope and --small
in another (the LongMemEval harness's scope size), stored through `/api/store/batch` and
embedded in this process (retrieval.indexing). Then LongMemEval questions run through
Django's test client against each scope, after a warm-up pass (query vectors cached, as in a
benchmark that repeats its questions): per query the server's `timing_ms`, the number of SQL
statements and the time of each statement kind. With --profile the measured pass is
cProfiled into PATH.<scope>. The load average is recorded: on a shared machine the absolute
figures are inflated.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile
from bench.embedding import start_services, store
from bench.store_search import corpus


def kind(sql: str) -> str:
    """A short name for a statement: the arms, BM25 df, N, feedback, attach, the rest."""
    s = " ".join(sql.split())[:400]
    for name, pattern in (
        ("arms", r"^WITH semantic AS|^WITH fts_|^WITH title"),
        ("feedback_seeds", r"DISTINCT ON \(c\.block_id\)"),
        ("feedback_rescore", r"1 - min\(c\.embedding"),
        ("scope_size", r"SELECT count\(\*\) FROM \(SELECT 1 FROM ctx_block b WHERE b\.scope_id"),
        ("embed_cache", r"ctx_embedcache"),
        ("attach_blocks", r'FROM "ctx_block" INNER JOIN "ctx_scope"'),
        ("rls_context", r"set_config|SET LOCAL|SET ROLE"),
        ("auth", r"ctx_apikey|ctx_tenant"),
        ("registry", r"ctx_setting|registry"),
        ("anchors", r"ctx_temporalanchor"),
        ("links", r"dream_link|dream_"),
    ):
        if re.search(pattern, s):
            return name
    return "other: " + s[:70]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.calls.append((kind(sql), (time.perf_counter() - started) * 1000))


def explain_arms(client: Any, scope: str, question: str) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of the arms statement one query runs, on stderr."""
    from django.db import connection

    captured: list[tuple[str, Any]] = []

    def grab(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if kind(sql) == "arms" and not captured:
            captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(grab):
        client.post(
            "/api/query",
            {"query": question, "scope": scope, "limit": 10},
            content_type="application/json",
        )
    sql, params = captured[0]
    with connection.cursor() as cur:
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        plan = "\n".join(r[0] for r in cur.fetchall())
    print(f"--- {scope}: {question}\n{plan}", file=sys.stderr)


def run(
    client: Any, scope: str, questions: list[str], profile: str | None, explain: bool = False
) -> dict[str, Any]:
    from django.db import connection

    def ask(q: str) -> dict[str, Any]:
        resp = client.post(
            "/api/query", {"query": q, "scope": scope, "limit": 10}, content_type="application/json"
        )
        assert resp.status_code == 200, resp.content
        body: dict[str, Any] = resp.json()
        return body

    for q in questions:  # warm-up: query vectors cached, connections and plans warm
        ask(q)
    per_kind: dict[str, list[float]] = defaultdict(list)
    counts, totals, wall = [], [], []
    timings: dict[str, list[float]] = defaultdict(list)
    prof = cProfile.Profile() if profile else None
    for q in questions:
        rec = Recorder()
        started = time.perf_counter()
        with connection.execute_wrapper(rec):
            if prof:
                prof.enable()
            body = ask(q)
            if prof:
                prof.disable()
        wall.append((time.perf_counter() - started) * 1000)
        counts.append(len(rec.calls))
        totals.append(body["timing_ms"]["total"])
        for name, ms in body["timing_ms"].items():
            timings[name].append(ms)
        by_kind: dict[str, float] = defaultdict(float)
        for name, ms in rec.calls:
            by_kind[name] += ms
        for name, ms in by_kind.items():
            per_kind[name].append(ms)
    if explain:
        explain_arms(client, scope, questions[0])
    if prof:
        prof.dump_stats(f"{profile}.{scope.replace(':', '_')}")
    n = len(questions)
    return {
        "queries": n,
        "server_p50_ms": round(percentile(totals, 50), 2),
        "server_p95_ms": round(percentile(totals, 95), 2),
        "client_p50_ms": round(percentile(wall, 50), 2),
        "statements_p50": percentile(counts, 50),
        "timing_ms_p50": {k: round(percentile(v, 50), 2) for k, v in timings.items()},
        "sql_ms_mean_per_query": {
            k: round(sum(v) / n, 2) for k, v in sorted(per_kind.items(), key=lambda kv: -sum(kv[1]))
        },
        "load1": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--blocks", type=int, default=10_000)
    ap.add_argument("--small", type=int, default=50)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--precision", default="bf16", choices=("fp32", "bf16"))
    ap.add_argument("--profile")
    ap.add_argument("--explain", action="store_true", help="print the arms statement's plan")
    ap.add_argument("--out")
    args = ap.parse_args()
    os.environ["CTX_EMBED_PRECISION"] = args.precision
    texts, questions = corpus(args.blocks + args.small)
    handles = start_services()
    try:
        from retrieval.indexing import embed_pending

        clients = {
            "big": store(texts[: args.blocks], "big"),
            "small": store(texts[args.blocks :], "small"),
        }
        started = time.perf_counter()
        while embed_pending(limit=256):
            pass
        embedded_s = time.perf_counter() - started
        result: dict[str, Any] = {
            "benchmark": "query_profile",
            "blocks": args.blocks,
            "small": args.small,
            "embedded_s": round(embedded_s, 1),
        }
        for name, client in clients.items():
            result[name] = run(
                client, f"{name}:main", questions[: args.queries], args.profile, args.explain
            )
            print(name, result[name], file=sys.stderr)
    finally:
        handles.stop()
    emit(
        result,
        f"query_profile: {args.blocks} blocks p50 {result['big']['server_p50_ms']} ms, "
        f"{args.small} blocks p50 {result['small']['server_p50_ms']} ms (server, in-process, "
        f"load {result['small']['load1']})",
        args.out,
    )


if __name__ == "__main__":
    main()
