"""/api/context at 100k blocks and /api/changes over a day of 5,000 changes: server-side time.

    python bench/briefing.py [--blocks 100000] [--changes 5000] [--repeat 50] [--out r.json]

A private embedded PostgreSQL: --blocks LongMemEval user turns bulk-inserted with SQL into the
scopes of tenant `bench` (70% in bench:main) plus a tenth as many for tenant `other`. Of the
bench blocks 80% are transcripts and notes, the rest what extraction writes: facts (8%),
preferences (3%), decisions (3%), tasks (3%, a third of them done), entities (3%: projects,
people, places), with `metadata.confidence`, a project on a third of them, a few corrections;
updated over the last 120 days. The day: --changes changes in the last 24 hours (60% new
memory blocks among the --blocks, 30% block versions, 10% sessions of four tools).

Django runs in this process as the runtime role `ctx_app` (row-level security on, as in `make
run`); each request goes through Django's test client with the owner's key: middleware, key,
principal, the queries, the tokenizer, the JSON; no network. Contexts: the four agents, with
and without a project, budgets 200/500/2000. Changes: since yesterday's start, the first page
(with the counts), page 10 and a page near the end of the day (up to 50 deep, by cursor).
--repeat timed requests per case after two untimed ones; p50/p95 wall time, the SQL of one
request, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.admin import as_runtime_role, load  # noqa: E402
from bench.common import emit, percentile, start_in_process  # noqa: E402
from bench.store_search import corpus  # noqa: E402

TARGET_MS = 100.0
SCOPES = {"bench:main": 0.7, "bench:a": 0.1, "bench:b": 0.1, "bench:c": 0.1}
MEMORY = [("fact", 8), ("preference", 3), ("decision", 3), ("task", 3), ("entity", 3)]
PROJECTS = [f"proj{i}" for i in range(12)]
ENTITY_KINDS = ["project", "person", "person", "place"]
TOOLS = ["claude-code", "codex", "cursor", "gemini"]

_INSERT = """
INSERT INTO ctx_block (id, scope_id, category, title, content, tags, metadata, type, lifecycle,
    content_hash, archived, embed_model, content_times, quality, sensitivity, source,
    source_session, source_quote, created_at, updated_at)
SELECT gen_random_uuid(), s, c, t, x, tg::varchar[], m::jsonb, ty, 'knowledge', md5(x), false,
    '', '{}', 0.5, 'internal', '', '', '', now() - (n || ' seconds')::interval,
    now() - (n || ' seconds')::interval
FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
            %s::text[], %s::int[]) AS v(s, c, t, x, tg, m, ty, n)
"""
_VERSIONS = """
INSERT INTO ctx_blockversion (block_id, scope_id, version, category, title, content, tags,
    metadata, type, sensitivity, written_at, replaced_at, replaced_by, replaced_via)
SELECT id, scope_id, 1, category, title, 'before: ' || left(content, 200), tags, metadata,
    type, sensitivity, updated_at - interval '30 days',
    now() - (random() * 86000 || ' seconds')::interval, 'owner', 'http'
FROM ctx_block WHERE scope_id = ANY(%s) AND type <> 'transcript' ORDER BY md5(id::text) LIMIT %s
"""
_SESSIONS = """
INSERT INTO ingest_session (scope_id, tool, external_id, title, project_root, git_branch,
    git_commit, started_at, last_activity_at, message_count, parent_external_id, is_sidechain,
    meta, preview, created_at, updated_at)
SELECT %s, (ARRAY['claude-code','codex','cursor','gemini'])[1 + g %% 4], 'bench-' || g,
    'session ' || g, '/src/proj' || (g %% 12), '', '', now() - (g || ' seconds')::interval,
    now() - (g || ' seconds')::interval, 10, '', false, '{}', '',
    now() - (g * 17 %% 86000 || ' seconds')::interval, now()
FROM generate_series(1, %s) AS g
"""


def _kind(rng: random.Random) -> str:
    roll = rng.random() * 100
    for kind, share in MEMORY:
        if roll < share:
            return kind
        roll -= share
    return rng.choice(["transcript"] * 3 + ["knowledge"])


def _metadata(kind: str, rng: random.Random) -> str:
    import json

    meta: dict[str, Any] = {"confidence": round(rng.uniform(0.3, 0.95), 2)}
    if rng.random() < 0.33:
        meta["project"] = rng.choice(PROJECTS)
    if kind == "entity":
        meta["entity_type"] = rng.choice(ENTITY_KINDS)
        meta["status"] = "active"
    if kind == "task" and rng.random() < 0.33:
        meta["status"] = "done"
    if kind in ("fact", "preference") and rng.random() < 0.01:
        meta["corrects"] = True
    return json.dumps(meta)


def _tags(meta: str) -> str:
    """A block with a project carries the `project:<p>` tag, as `ctx persist` writes it."""
    found = re.search(r'"project": "(proj\d+)"', meta)
    return "{project:" + found.group(1) + "}" if found else "{}"


def _rows(scope_id: int, texts: list[str], rows: range, plan: dict[str, Any]) -> list[Any]:
    rng: random.Random = plan["rng"]
    kinds = [_kind(rng) for _ in rows]
    metas = ["{}" if k in ("transcript", "knowledge") else _metadata(k, rng) for k in kinds]
    ages = [
        rng.randint(60, 86_000) if rng.random() < plan["fresh"] else rng.randint(86_400, 10**7)
        for _ in rows
    ]
    return [
        [scope_id] * len(rows),
        [f"cat{i % 20}" for i in rows],
        [f"turn {i}: {texts[i][:60]}" for i in rows],
        [texts[i][:600] for i in rows],
        [_tags(m) for m in metas],
        metas,
        kinds,
        ages,
    ]


def seed(blocks: int, changes: int) -> dict[str, Any]:
    from django.db import connection

    from ctx import services
    from ctx.models import Scope

    bench = services.tenant_create(name="bench", scopes=[s for s in SCOPES if s != "bench:main"])
    services.tenant_create(name="other")
    _, owner = services.key_create(
        tenant=bench, name="owner", home="bench:main", write=list(SCOPES), role="owner"
    )
    total = blocks + blocks // 10
    distinct, _ = corpus(total)
    texts = [distinct[i % len(distinct)] for i in range(total)]
    scope_ids = dict(Scope.objects.values_list("name", "id"))
    bench_ids = [scope_ids[s] for s in SCOPES]
    memory_share = sum(share for _, share in MEMORY) / 100
    # New memory blocks of the day: 60% of the changes, among the bench blocks.
    fresh = min(1.0, 0.6 * changes / (blocks * memory_share))
    plan = {"rng": random.Random(7), "fresh": fresh}
    layout = [(name, int(blocks * share)) for name, share in SCOPES.items()]
    layout.append(("other:main", total - sum(n for _, n in layout)))
    start = 0
    with connection.cursor() as cur:
        for name, count in layout:
            for chunk in range(start, start + count, 5000):
                rows = range(chunk, min(chunk + 5000, start + count))
                cur.execute(_INSERT, _rows(scope_ids[name], texts, rows, plan))
            start += count
        cur.execute(_VERSIONS, [bench_ids, int(changes * 0.3)])
        cur.execute(_SESSIONS, [scope_ids["bench:main"], int(changes * 0.1)])
        cur.execute("ANALYZE")
        cur.execute(
            "SELECT count(*) FROM ctx_block WHERE scope_id = ANY(%s) AND type <> 'transcript'"
            " AND type <> 'knowledge' AND created_at > now() - interval '1 day'",
            [bench_ids],
        )
        (new_today,) = cur.fetchone()
    return {"owner": owner, "new_memory_blocks_today": new_today}


def measure(client: Any, key: str, urls: list[str], repeat: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    headers = {"X-Context-Key": key}
    for url in urls[:2]:
        resp = client.get(url, headers=headers)
        assert resp.status_code == 200, (url, resp.content[:300])
    times = []
    for i in range(repeat):
        started = time.perf_counter()
        resp = client.get(urls[i % len(urls)], headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert resp.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        body = client.get(urls[0], headers=headers).json()
    return {
        "p50_ms": round(percentile(times, 50), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "max_ms": round(max(times), 1),
        "sql_ms": round(sum(float(q["time"]) for q in queries.captured_queries) * 1000, 1),
        "queries": len(queries),
        "sample": {k: body[k] for k in ("tokens", "count", "candidates") if k in body},
    }


def _cursor(client: Any, key: str, depth: int) -> str:
    url = "/api/changes?since=yesterday&limit=50"
    cursor = ""
    for _ in range(depth):
        body = client.get(url + cursor, headers={"X-Context-Key": key}).json()
        assert body.get("next_cursor"), body
        cursor = f"&cursor={body['next_cursor']}"
    return url + cursor


def cases(client: Any, key: str, changes: int) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for agent in ("general", "code", "meeting", "task"):
        found[f"context {agent}"] = [f"/api/context?agent={agent}&max_tokens=500"]
        found[f"context {agent} +project"] = [
            f"/api/context?agent={agent}&project={p}&max_tokens=500" for p in PROJECTS
        ]
    for budget in (200, 2000):
        found[f"context code +project {budget} tokens"] = [
            f"/api/context?agent=code&project={p}&max_tokens={budget}" for p in PROJECTS
        ]
    found["changes since yesterday, page 1"] = ["/api/changes?since=yesterday&limit=50"]
    deep = max(2, min(50, changes // 50 - 2))  # near the end of the day's pages
    found["changes, page 10"] = [_cursor(client, key, min(9, deep - 1))]
    found[f"changes, page {deep}"] = [_cursor(client, key, deep - 1)]
    return found


def run(args: argparse.Namespace) -> dict[str, Any]:
    handles = start_in_process("ctx-bench-briefing-")
    try:
        started = time.perf_counter()
        seeded = seed(args.blocks, args.changes)
        seed_s = round(time.perf_counter() - started, 1)
        as_runtime_role()
        from django.test import Client

        client = Client()
        results: dict[str, Any] = {"seed_s": seed_s, "load_before": load(), **seeded}
        results.pop("owner")
        results["cases"] = {
            name: measure(client, seeded["owner"], urls, args.repeat)
            for name, urls in cases(client, seeded["owner"], args.changes).items()
        }
        results["load_after"] = load()
        return results
    finally:
        handles.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--changes", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--out")
    args = parser.parse_args()
    os.environ.setdefault("CTX_LOG_LEVEL", "warning")
    result = run(args)
    ctx_cases = {k: v for k, v in result["cases"].items() if k.startswith("context")}
    ch_cases = {k: v for k, v in result["cases"].items() if k.startswith("changes")}
    worst_ctx = max((v["p95_ms"], k) for k, v in ctx_cases.items())
    worst_ch = max((v["p95_ms"], k) for k, v in ch_cases.items())
    verdict = "within" if max(worst_ctx[0], worst_ch[0]) <= TARGET_MS else "over"
    summary = (
        f"briefing at {args.blocks:,} blocks, {args.changes:,} changes a day: /api/context "
        f"slowest p95 {worst_ctx[0]} ms ({worst_ctx[1]}), /api/changes slowest p95 "
        f"{worst_ch[0]} ms ({worst_ch[1]}), {verdict} the {TARGET_MS:.0f} ms target; "
        f"load {result['load_before']} -> {result['load_after']}"
    )
    emit(
        {"blocks": args.blocks, "changes": args.changes, "repeat": args.repeat, **result},
        summary,
        args.out,
    )


if __name__ == "__main__":
    main()
