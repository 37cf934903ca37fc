"""What row-level security costs on `/api/query`: p50/p95 with and without RLS in one run.

    python bench/rls.py [--blocks 10000] [--scopes 4] [--queries 200] [--out F]

One private server (`python -m ctx.runtime.launcher run`, whose web and worker log in as the runtime
role `ctx_app`: RLS on) and, on the same database, Redis and data directory, a second web
server logged in as the table owner (a superuser: RLS off). Short blocks (LongMemEval user
turns cut to 300 characters) are spread over several scopes; each query names one scope while
the key reads all of them, so the policy admits more than the query's own filter. Queries go
to both servers interleaved, in alternating order, so drift on a shared machine cancels out.
Latency is the server's `timing_ms.total` (retrieval only) and the client's wall time.

It also EXPLAINs one fused search statement (retrieval/sql.py) as `ctx_app` under a tenant's
scopes and as the owner, and reports which indexes each plan uses.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ROOT, emit, percentile, private_server, stop
from bench.query_latency import wait_embedded
from bench.store_search import corpus
from ctx.runtime.launcher import free_port
from rls.role import runtime_database_url

BATCH = 500
INDEXES = (
    "chunk_embedding_hnsw",
    "block_embedding_hnsw",
    "block_tsv_en_gin",
    "block_tsv_de_gin",
    "block_title_trgm",
    "block_scope_category",
)


def owner_url(data_dir: Path) -> str:
    from pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(data_dir / "pg")
    assert info is not None, "the embedded PostgreSQL is not running"
    return str(info.get_uri())


@contextmanager
def owner_server(data_dir: Path) -> Iterator[str]:
    """The same app on the same database, logged in as the owner: RLS does not apply."""
    port = free_port("127.0.0.1", 0)
    env = dict(os.environ)
    env.update(
        DATABASE_URL=owner_url(data_dir),
        REDIS_URL=f"redis+socket://{data_dir / 'run' / 'redis.sock'}",
        CTX_DATA_DIR=str(data_dir),
        CTX_DB_CONN_MAX_AGE="0",  # as the launcher runs its web processes
        HF_HUB_OFFLINE="1",
        OMP_NUM_THREADS=str(max(1, (os.cpu_count() or 1) // 2)),
        TOKENIZERS_PARALLELISM="false",
    )
    cmd = [sys.executable, "-m", "uvicorn", "ctx.asgi:app", "--port", str(port), "--workers", "2"]
    log = data_dir.with_suffix(".owner.log").open("w")
    proc = subprocess.Popen([*cmd, "--log-level", "warning"], cwd=ROOT, env=env, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_health(url, proc)
        yield url
    finally:
        stop(proc, signal.SIGTERM, 30)


def _wait_health(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the owner server exited during start-up")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError("the owner server did not answer /health")


def store(client: httpx.Client, scopes: list[str], texts: list[str]) -> None:
    for start in range(0, len(texts), BATCH):
        by_scope: dict[str, list[dict[str, str]]] = {s: [] for s in scopes}
        for i, t in enumerate(texts[start : start + BATCH], start=start):
            block = {"category": f"cat{i % 20}", "title": f"turn {i}: {t[:60]}", "content": t}
            by_scope[scopes[i % len(scopes)]].append(block)
        for scope, blocks in by_scope.items():
            body = {"scope": scope, "blocks": blocks}
            client.post("/api/store/batch", json=body).raise_for_status()


def one_query(client: httpx.Client, question: str, scope: str) -> tuple[float, float]:
    started = time.perf_counter()
    resp = client.post("/api/query", json={"query": question, "scope": scope, "limit": 10})
    wall = (time.perf_counter() - started) * 1000
    resp.raise_for_status()
    return float(resp.json()["timing_ms"]["total"]), wall


def interleaved(
    clients: dict[str, httpx.Client], questions: list[str], scopes: list[str]
) -> dict[str, dict[str, list[float]]]:
    """Both servers answer every question; who goes first alternates."""
    times: dict[str, dict[str, list[float]]] = {n: {"server": [], "wall": []} for n in clients}
    names = list(clients)
    for i, question in enumerate(questions):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            server, wall = one_query(clients[name], question, scopes[i % len(scopes)])
            times[name]["server"].append(server)
            times[name]["wall"].append(wall)
    return times


def _stats(values: dict[str, list[float]]) -> dict[str, float]:
    return {
        "server_p50_ms": round(percentile(values["server"], 50), 2),
        "server_p95_ms": round(percentile(values["server"], 95), 2),
        "client_p50_ms": round(percentile(values["wall"], 50), 2),
        "client_p95_ms": round(percentile(values["wall"], 95), 2),
    }


def explain(data_dir: Path, question: str) -> dict[str, Any]:
    """EXPLAIN ANALYZE one fused search, as `ctx_app` with a tenant's scopes and as owner."""
    import psycopg

    from retrieval.search import df_cap, lexical_terms
    from retrieval.sql import ARMS, Filters, arms_sql
    from retrieval.text import lexical_query

    owner = owner_url(data_dir)
    with psycopg.connect(owner, autocommit=True) as conn:
        scope_ids = [r[0] for r in conn.execute("SELECT id FROM ctx_scope ORDER BY id")]
        bench_scope = conn.execute("SELECT id FROM ctx_scope WHERE name = 's0'").fetchone()
        vec = conn.execute(
            "SELECT embedding::text FROM ctx_blockchunk ORDER BY block_id LIMIT 1"
        ).fetchone()
    assert bench_scope is not None and vec is not None
    terms = lexical_terms(question)
    sql, params = arms_sql(
        filters=Filters(scope_ids=[bench_scope[0]]),
        arms=ARMS,
        terms={"fts_en": terms, "fts_de": terms, "fts_simple": terms},
    )
    params.update(
        q_title=lexical_query(question), qvec=vec[0], pool=50, chunk_pool=200, n_docs=10_000,
        df_cap=df_cap(10_000), match_budget=4000, counted_scopes=[], uncounted_scopes=[],
    )  # fmt: skip
    plans = {}
    for name, url in (("rls_on", runtime_database_url(owner)), ("rls_off", owner)):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
            ids = "{" + ",".join(map(str, scope_ids)) + "}"
            conn.execute("SELECT set_config('ctx.scope_ids', %s, false)", (ids,))
            rows = conn.execute("EXPLAIN (ANALYZE, COSTS OFF) " + sql, params).fetchall()
        text = "\n".join(r[0] for r in rows)
        ms = re.search(r"Execution Time: ([\d.]+) ms", text)
        plans[name] = {
            "indexes": sorted(i for i in INDEXES if i in text),
            "seq_scans": sorted(set(re.findall(r"Seq Scan on (\w+)", text))),
            "execution_ms": float(ms.group(1)) if ms else None,
            "plan": text,
        }
    return plans


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--blocks", type=int, default=10000)
    ap.add_argument("--scopes", type=int, default=4)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out")
    args = ap.parse_args()
    texts, questions = corpus(args.blocks)
    texts = [t[:300] for t in texts]
    scopes = [f"s{i}" for i in range(args.scopes)]
    with private_server(prefix="ctx-bench-rls-") as server:
        assert server.data_dir is not None
        data_dir, headers = server.data_dir, {"X-Context-Key": server.key}
        with httpx.Client(base_url=server.url, headers=headers, timeout=600) as rls_on:
            for scope in scopes:
                rls_on.post("/api/admin/scopes", json={"name": scope}).raise_for_status()
            store(rls_on, scopes, texts)
            embed_s = wait_embedded(rls_on, scopes[0])
            for scope in scopes[1:]:
                wait_embedded(rls_on, scope)
            with (
                owner_server(data_dir) as off_url,
                httpx.Client(base_url=off_url, headers=headers, timeout=600) as rls_off,
            ):
                clients = {"rls_on": rls_on, "rls_off": rls_off}
                interleaved(clients, questions[:20], scopes)  # warm-up
                load = os.getloadavg()
                times = interleaved(clients, questions[20 : 20 + args.queries], scopes)
                load_after = os.getloadavg()
            plans = explain(data_dir, questions[20])
    on, off = _stats(times["rls_on"]), _stats(times["rls_off"])
    cost = (on["server_p50_ms"] - off["server_p50_ms"]) / off["server_p50_ms"] * 100
    result = {
        "benchmark": "rls",
        "blocks": len(texts),
        "scopes": len(scopes),
        "queries": len(times["rls_on"]["server"]),
        "embed_wait_s": round(embed_s, 1),
        "load_avg_before": [round(x, 2) for x in load],
        "load_avg_after": [round(x, 2) for x in load_after],
        "rls_on": on,
        "rls_off": off,
        "p50_cost_pct": round(cost, 1),
        "explain": plans,
    }
    summary = (
        f"rls: {len(texts)} blocks in {len(scopes)} scopes, server p50 {on['server_p50_ms']} ms "
        f"with RLS vs {off['server_p50_ms']} ms without ({cost:+.1f}%), p95 "
        f"{on['server_p95_ms']} vs {off['server_p95_ms']} ms; load {load[0]:.1f}; "
        f"indexes under RLS: {', '.join(plans['rls_on']['indexes']) or 'none'}"
    )
    emit(result, summary, args.out)


if __name__ == "__main__":
    main()
