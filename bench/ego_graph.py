"""`GET /api/graph/ego` with the defaults at 1,000,000 blocks and 5,000,000 links, over HTTP.

    python bench/ego_graph.py [--blocks 1000000] [--links 5000000] [--samples 300] [--out F]

A private server (`python -m ctx.runtime.launcher run`, no Celery worker: nothing dreams while
we measure; the web processes log in as the runtime role `ctx_app`, row-level security on).
The corpus is written straight into its database as the owner with set-based SQL
(`generate_series`; no HTTP store, no embeddings): --blocks blocks in the admin key's home
scope, 1% archived and 0.2% system-meta (the walk must skip both), in 50 categories, created
over a year; --links links between them: half with both ends uniform, half with one end
uniform and the other drawn as floor(N * u^3), which gives hubs (the top block has about
N^(-1/3) / 2 of the link ends: some 25,000 links at 1M blocks) over a median of about ten
links a block; classes topical 40%, factual 25%, causal 15%, recurrent 10%, supersedes 10%;
confidence 0.3-1.0. The secondary indexes of both tables are dropped for the load and built
again afterwards from their own definitions, then VACUUM ANALYZE.

Then --samples random live focus blocks (uniform over the scope, after 20 untimed warm-up
requests) through HTTP with the admin key and the endpoint's defaults (1 hop, 25 links per
node, 500 nodes, 2,000 edges); p50/p95/max of the client's wall time, the answer's size, and
EXPLAIN ANALYZE of one leg and of the node query for the slowest focus block. --hops 2,3 adds
the same at more hops (not part of the target). The target: p95 <= 100 ms with the defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile, private_server

TARGET_MS = 100.0

_BLOCKS = """
INSERT INTO ctx_block (id, scope_id, category, title, content, tags, metadata, type, lifecycle,
    content_hash, archived, embed_model, content_times, quality, sensitivity, source,
    source_session, source_quote, created_at, updated_at)
SELECT gen_random_uuid(), %(scope)s, 'c' || (i %% 50), 'ego block ' || i, 'text ' || i,
    '{}', '{}', CASE WHEN i %% 500 = 7 THEN 'system-meta' ELSE 'knowledge' END, 'knowledge',
    md5(i::text), i %% 100 = 3, '', '{}', 0.5, 'internal', '', '', '',
    now() - (i %% 365 || ' days')::interval, now()
FROM generate_series(%(lo)s::int, %(hi)s::int) AS i
"""

# Pairs by position in one array of the scope's ids (a row-numbered join ran as a nested loop).
_LINKS = """
WITH ids AS (SELECT array_agg(id ORDER BY id) AS arr FROM ctx_block WHERE scope_id = %(scope)s),
pairs AS (
    SELECT floor(random() * %(n)s)::int AS a,
           CASE WHEN random() < 0.5 THEN floor(random() * %(n)s)::int
                ELSE floor(%(n)s * power(random(), 3))::int END AS b,
           random() AS r, 0.3 + 0.7 * random() AS conf
    FROM generate_series(1, %(m)s::int)),
typed AS (
    SELECT p.*, ids.arr[p.a + 1] AS x, ids.arr[least(p.b, %(n)s - 1) + 1] AS y,
           CASE WHEN r < 0.40 THEN 'topical' WHEN r < 0.65 THEN 'factual'
                WHEN r < 0.80 THEN 'causal' WHEN r < 0.90 THEN 'recurrent'
                ELSE 'supersedes' END AS c
    FROM pairs p, ids)
INSERT INTO dream_link (source_id, target_id, link_class, scope_id, confidence, raw_confidence,
                        origin, evidence, pinned, created_at, updated_at)
SELECT CASE WHEN c IN ('topical', 'factual') THEN least(x, y) ELSE x END,
       CASE WHEN c IN ('topical', 'factual') THEN greatest(x, y) ELSE y END,
       c, %(scope)s, conf * 0.95, conf, 'dream', '{}', false, now(), now()
FROM typed WHERE a <> b
ON CONFLICT ON CONSTRAINT link_source_target_class_uniq DO NOTHING
"""

# Plain indexes (not those behind a constraint): dropped for the load, rebuilt after it.
_INDEXES = """
SELECT i.indexname, i.indexdef FROM pg_indexes i
WHERE i.tablename = %s AND NOT EXISTS (
    SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
"""


def owner_url(data_dir: Path) -> str:
    from pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(data_dir / "pg")
    assert info is not None, "the embedded PostgreSQL is not running"
    return str(info.get_uri())


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def one(db: psycopg.Connection[Any], sql: str, params: dict[str, Any]) -> tuple[Any, ...]:
    row = db.execute(sql, params).fetchone()
    assert row is not None
    return tuple(row)


def build(db: psycopg.Connection[Any], blocks: int, links: int) -> dict[str, Any]:
    """The corpus in the (only) key's home scope; returns its figures."""
    started = time.perf_counter()
    (scope,) = one(db, "SELECT home_scope_id FROM ctx_apikey ORDER BY id LIMIT 1", {})
    db.execute("SET maintenance_work_mem = '512MB'")
    db.execute("SET session_replication_role = replica")  # no FK triggers for the bulk load
    saved = {t: db.execute(_INDEXES, [t]).fetchall() for t in ("ctx_block", "dream_link")}
    for rows in saved.values():
        for name, _ in rows:
            db.execute(f'DROP INDEX "{name}"')
    for lo in range(1, blocks + 1, 200_000):
        db.execute(_BLOCKS, {"scope": scope, "lo": lo, "hi": min(blocks, lo + 199_999)})
        log(f"blocks {min(blocks, lo + 199_999):,}")
    written = 0
    while written < links:
        batch = min(1_000_000, links - written)
        db.execute(_LINKS, {"scope": scope, "n": blocks, "m": batch})
        (written,) = one(db, "SELECT count(*) FROM dream_link WHERE scope_id = %(s)s", {"s": scope})
        log(f"links {written:,}")
    db.execute("SET session_replication_role = origin")
    loaded = time.perf_counter()
    for rows in saved.values():
        for name, definition in rows:
            log(f"index {name}")
            db.execute(definition)
    db.execute("VACUUM ANALYZE ctx_block")
    db.execute("VACUUM ANALYZE dream_link")
    return {
        "scope_id": scope,
        "blocks": blocks,
        "links": written,
        "load_s": round(loaded - started, 1),
        "index_and_vacuum_s": round(time.perf_counter() - loaded, 1),
        "degree": _degrees(db, scope),
    }


def _degrees(db: psycopg.Connection[Any], scope: int) -> dict[str, Any]:
    rows = one(
        db,
        """
        WITH ends AS (SELECT source_id AS id FROM dream_link WHERE scope_id = %(s)s
                      UNION ALL SELECT target_id FROM dream_link WHERE scope_id = %(s)s),
        d AS (SELECT count(*) AS n FROM ends GROUP BY id)
        SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99, 0.999]) WITHIN GROUP (ORDER BY n),
               max(n), count(*) FILTER (WHERE n > 200)
        FROM d
        """,
        {"s": scope},
    )
    p50, p90, p99, p999 = rows[0]
    return {"p50": p50, "p90": p90, "p99": p99, "p99_9": p999, "max": rows[1], "over_200": rows[2]}


def focus_blocks(db: psycopg.Connection[Any], scope: int, n: int, seed: int) -> list[str]:
    """`n` random live, non-system blocks of the scope (the sample is seeded)."""
    rows = db.execute(
        "SELECT id::text FROM ctx_block WHERE scope_id = %s AND NOT archived"
        " AND type <> 'system-meta' ORDER BY md5(id::text || %s) LIMIT %s",
        [scope, str(seed), n],
    ).fetchall()
    return [r[0] for r in rows]


def measure(url: str, key: str, ids: list[str], params: dict[str, Any]) -> dict[str, Any]:
    headers = {"X-Context-Key": key}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        for block in ids[:20]:  # warm-up: connections, caches, the key lookup
            client.get("/api/graph/ego", params={"id": block, **params}).raise_for_status()
        times: list[tuple[float, str]] = []
        nodes, edges, degree_capped = [], [], 0
        for block in ids[20:]:
            started = time.perf_counter()
            resp = client.get("/api/graph/ego", params={"id": block, **params})
            elapsed = (time.perf_counter() - started) * 1000
            resp.raise_for_status()
            body = resp.json()
            times.append((elapsed, block))
            nodes.append(len(body["nodes"]))
            edges.append(len(body["edges"]))
            degree_capped += sum(1 for node in body["nodes"] if node["degree"] == 201)
    ms = [t for t, _ in times]
    return {
        "params": params,
        "samples": len(ms),
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "max_ms": round(max(ms), 1),
        "nodes_p50": percentile(nodes, 50),
        "nodes_max": max(nodes),
        "edges_p50": percentile(edges, 50),
        "nodes_with_degree_200_plus": degree_capped,
        "slowest": max(times)[1],
    }


def explain(db: psycopg.Connection[Any], scope: int, block: str) -> dict[str, str]:
    """EXPLAIN ANALYZE of one default leg (from `block`) and of the node query on its result."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    import django

    django.setup()
    from dream import ego

    legs = {
        "frontier": [block],
        "scopes": [scope],
        "focus": block,
        "min": 0.0,
        "classes": [],
        "categories": [],
        "after": None,
        "before": None,
        "cap": 25,
    }
    leg_plan = _plan(db, ego._LEG, legs)
    ids = [block] + [r[4] for r in db.execute(ego._LEG, legs).fetchall() if r[4] != block]
    node_plan = _plan(db, ego._NODES, {"ids": ids, "scopes": [scope], "degree": 201})
    return {"leg": leg_plan, "nodes": node_plan}


def _plan(db: psycopg.Connection[Any], sql: str, params: dict[str, Any]) -> str:
    rows = db.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params).fetchall()
    return "\n".join(r[0] for r in rows)


def run(args: argparse.Namespace) -> dict[str, Any]:
    extra = {"CTX_LOG_LEVEL": "warning"}
    with private_server(workers=0, extra_env=extra, prefix="ctx-bench-ego-") as server:
        assert server.data_dir is not None
        with psycopg.connect(owner_url(server.data_dir), autocommit=True) as db:
            log("building the corpus")
            corpus = build(db, args.blocks, args.links)
            log(f"corpus: {corpus}")
            ids = focus_blocks(db, corpus["scope_id"], args.samples + 20, seed=7)
            result: dict[str, Any] = {"corpus": corpus, "load_before": os.getloadavg()[0]}
            result["defaults"] = measure(server.url, server.key, ids, {})
            log(f"defaults: {result['defaults']}")
            for hops in [int(h) for h in args.hops.split(",") if h]:
                result[f"hops_{hops}"] = measure(server.url, server.key, ids, {"hops": hops})
                log(f"hops {hops}: {result[f'hops_{hops}']}")
            result["load_after"] = os.getloadavg()[0]
            result["explain_slowest"] = explain(
                db, corpus["scope_id"], result["defaults"]["slowest"]
            )
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=1_000_000)
    ap.add_argument("--links", type=int, default=5_000_000)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--hops", default="", help="also measure these hop counts, e.g. 2,3")
    ap.add_argument("--out")
    args = ap.parse_args()
    result = run(args)
    d = result["defaults"]
    verdict = "within" if d["p95_ms"] <= TARGET_MS else "over"
    summary = (
        f"ego graph, defaults, {result['corpus']['blocks']:,} blocks / "
        f"{result['corpus']['links']:,} links: p50 {d['p50_ms']} ms, p95 {d['p95_ms']} ms, "
        f"max {d['max_ms']} ms over {d['samples']} focus blocks ({verdict} the "
        f"{TARGET_MS:g} ms target); load {result['load_before']:.1f}->{result['load_after']:.1f}"
    )
    emit(result, summary, args.out)


if __name__ == "__main__":
    main()
