"""Admin pages at 100k blocks: server-side time of the block list (with filters, search, a deep
page) and of a block's change page, under row-level security.

    python bench/admin.py [--blocks 100000] [--repeat 25] [--out results.json]

A private embedded PostgreSQL: --blocks LongMemEval user turns (reused past its ~92k distinct
ones; titles `turn <i>: …`, 20 categories, a few types, sensitivities and archived rows)
bulk-inserted with SQL into four scopes of tenant `bench` (70% in bench:main), a tenth as many
in tenant `other`, and causal links between neighbouring blocks. Django runs in this process,
connected as the runtime role `ctx_app` (row-level security applies, as in `make run`), with the
static files collected (manifest storage, as served). Each page is requested through Django's
test client by a signed-in operator: the tenant's owner (its four scopes) and a server admin
(every scope). The time is the whole request inside Django: middleware, session, the operator's
principal, the queries, the template; no network. --repeat timed requests per page after two
untimed ones; p50/p95 wall time, the p50 of Django's own CPU time (this process, without
PostgreSQL's: on a loaded machine the wall time also holds the wait for a core), the SQL time
and the number of queries of one request, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import emit, percentile, start_in_process  # noqa: E402
from bench.store_search import corpus  # noqa: E402

TARGET_MS = 300.0
SCOPES = {"bench:main": 0.7, "bench:a": 0.1, "bench:b": 0.1, "bench:c": 0.1}
TYPES = ["knowledge"] * 8 + ["note", "transcript"]
SENSITIVITY = ["internal"] * 17 + ["personal", "public", "credentials"]

_INSERT = """
INSERT INTO ctx_block (id, scope_id, category, title, content, tags, metadata, type, lifecycle,
    content_hash, archived, embed_model, content_times, quality, sensitivity, source,
    source_session, source_quote, created_at, updated_at)
SELECT gen_random_uuid(), s, c, t, x, '{}', '{}', ty, 'knowledge', md5(x), a, '', '{}', 0.5, se,
    '', '', '', now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval
FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::bool[],
            %s::text[], %s::int[]) AS v(s, c, t, x, ty, a, se, n)
"""

# Each block linked to the next one of its scope (a chain), as dream's causal links would be.
_LINKS = """
INSERT INTO dream_link (source_id, target_id, link_class, scope_id, confidence, raw_confidence,
                        origin, evidence, pinned, created_at, updated_at)
SELECT id, nxt, 'causal', scope_id, 0.8, 0.8, 'dream', '{}', false, now(), now()
FROM (SELECT id, scope_id, lead(id) OVER (PARTITION BY scope_id ORDER BY created_at) AS nxt
      FROM ctx_block) b
WHERE nxt IS NOT NULL
"""


def load() -> float:
    return round(os.getloadavg()[0], 2)


def seed(blocks: int) -> dict[str, Any]:
    """Tenants, scopes, keys and the blocks; returns the operators' keys and some ids."""
    from django.db import connection

    from ctx import services
    from ctx.models import Scope

    bench = services.tenant_create(name="bench", scopes=[s for s in SCOPES if s != "bench:main"])
    services.tenant_create(name="other")  # a tenth more blocks the owner must not see
    ops = services.tenant_create(name="ops")
    _, owner = services.key_create(
        tenant=bench, name="owner", home="bench:main", write=list(SCOPES), role="owner"
    )
    _, root = services.key_create(tenant=ops, name="root", home="ops:main", is_admin=True)
    total = blocks + blocks // 10
    distinct, _ = corpus(total)  # LongMemEval holds ~92k distinct user turns: reused past that
    texts = [distinct[i % len(distinct)] for i in range(total)]
    plan = [(name, int(blocks * share)) for name, share in SCOPES.items()]
    plan.append(("other:main", total - sum(n for _, n in plan)))
    scope_ids = dict(Scope.objects.values_list("name", "id"))
    rng, start = random.Random(7), 0
    with connection.cursor() as cur:
        for name, count in plan:
            for chunk in range(start, start + count, 5000):
                rows = range(chunk, min(chunk + 5000, start + count))
                cur.execute(_INSERT, _columns(scope_ids[name], texts, rows, rng))
            start += count
        cur.execute(_LINKS)
        cur.execute("ANALYZE")
        cur.execute(
            "SELECT id::text FROM ctx_block WHERE scope_id = %s AND NOT archived"
            " ORDER BY md5(id::text) LIMIT 200",
            [scope_ids["bench:main"]],
        )
        sample = [r[0] for r in cur.fetchall()]
    return {"owner": owner, "root": root, "scope_ids": scope_ids, "sample": sample}


def _columns(scope_id: int, texts: list[str], rows: range, rng: random.Random) -> list[Any]:
    return [
        [scope_id] * len(rows),
        [f"cat{i % 20}" for i in rows],
        [f"turn {i}: {texts[i][:60]}" for i in rows],
        [texts[i] for i in rows],
        [rng.choice(TYPES) for _ in rows],
        [rng.random() < 0.02 for _ in rows],
        [rng.choice(SENSITIVITY) for _ in rows],
        [len(texts) - i for i in rows],  # minutes ago: a spread of updated_at
    ]


def as_runtime_role() -> None:
    """Reconnect as `ctx_app` (row-level security on), persistently like the pool in `make run`."""
    from django.db import connection

    from rls.role import ROLE

    connection.close()
    connection.settings_dict.update(USER=ROLE, PASSWORD="", CONN_MAX_AGE=None)


def collect_static(folder: Path) -> None:
    """The manifest storage's files, as the web process serves them (hashed names)."""
    os.environ["CTX_STATIC_ROOT"] = str(folder)
    from django.conf import settings

    settings.STATIC_ROOT = str(folder)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, "CTX_STATIC_ROOT": str(folder)},
        check=True,
    )


def pages(seeded: dict[str, Any], sample: list[str], blocks: int) -> dict[str, list[str]]:
    main = seeded["scope_ids"]["bench:main"]
    listing = "/admin/ctx/block/"
    deep = max(2, blocks // 50 // 10)  # a tenth into the list (50 rows per page)
    return {
        "list": [listing],
        "list ?scope": [f"{listing}?scope={main}"],
        "list ?category": [f"{listing}?category=cat7"],
        "list ?type&lifecycle&sensitivity": [
            f"{listing}?type__exact=note&lifecycle__exact=knowledge&sensitivity__exact=internal"
        ],
        "list ?scope&category&archived": [
            f"{listing}?scope={main}&category=cat3&archived__exact=0"
        ],
        "list ?q (full text)": [
            f"{listing}?q=recipe",
            f"{listing}?q=flight",
            f"{listing}?q=doctor",
        ],
        "list, a deep page": [f"{listing}?p={deep}"],
        "change page": [f"/admin/ctx/block/{pk}/change/" for pk in sample],
    }


def measure(client: Any, urls: list[str], repeat: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for url in urls[:2]:
        assert client.get(url).status_code == 200, url  # untimed: warm the caches
    times, cpu = [], []
    for i in range(repeat):
        url = urls[i % len(urls)]
        started, started_cpu = time.perf_counter(), time.process_time()
        resp = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        assert resp.status_code == 200, (url, resp.status_code)
    with CaptureQueriesContext(connection) as queries:
        client.get(urls[0])
    return {
        "p50_ms": round(percentile(times, 50), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "max_ms": round(max(times), 1),
        # Django's own CPU time (this process; PostgreSQL's is not in it): on a loaded machine
        # the wall time includes waiting for a core, this part does not.
        "django_cpu_p50_ms": round(percentile(cpu, 50), 1),
        # The SQL of one request (wall time of each statement, as the client saw it).
        "sql_ms": round(sum(float(q["time"]) for q in queries.captured_queries) * 1000, 1),
        "queries": len(queries),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    handles = start_in_process("ctx-bench-admin-")
    static = Path(tempfile.mkdtemp(prefix="ctx-bench-admin-static-"))
    try:
        started = time.perf_counter()
        seeded = seed(args.blocks)
        seed_s = round(time.perf_counter() - started, 1)
        collect_static(static)
        as_runtime_role()
        return {"seed_s": seed_s, **timed(seeded, args)}
    finally:
        handles.stop()
        shutil.rmtree(static, ignore_errors=True)


def timed(seeded: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    from django.test import Client

    sample = seeded["sample"][: args.repeat]  # random live blocks of bench:main
    results: dict[str, Any] = {"load_before": load()}
    for who in ("owner", "root"):
        client = Client()
        resp = client.post("/admin/login/", {"api_key": seeded[who]})
        assert resp.status_code == 302, resp.content[:500]
        results[who] = {
            name: measure(client, urls, args.repeat)
            for name, urls in pages(seeded, sample, args.blocks).items()
        }
    results["load_after"] = load()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--out")
    args = parser.parse_args()
    os.environ.setdefault("CTX_LOG_LEVEL", "warning")
    result = run(args)
    worst = max(
        (page["p95_ms"], f"{who} {name}")
        for who in ("owner", "root")
        for name, page in result[who].items()
    )
    p50 = {who: max(p["p50_ms"] for p in result[who].values()) for who in ("owner", "root")}
    cpu = max(
        (page["django_cpu_p50_ms"], f"{who} {name}")
        for who in ("owner", "root")
        for name, page in result[who].items()
    )
    verdict = "within" if worst[0] <= TARGET_MS else "over"
    summary = (
        f"admin pages at {args.blocks:,} blocks: slowest p50 owner {p50['owner']} ms, server "
        f"admin {p50['root']} ms; slowest p95 {worst[0]} ms ({worst[1]}), {verdict} the "
        f"{TARGET_MS:.0f} ms target; Django CPU p50 at most {cpu[0]} ms ({cpu[1]}); "
        f"load {result['load_before']} -> {result['load_after']}"
    )
    emit(
        {"blocks": args.blocks, "repeat": args.repeat, "target_ms": TARGET_MS, **result},
        summary,
        args.out,
    )


if __name__ == "__main__":
    main()
