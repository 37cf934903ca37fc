"""Dream Mode benchmark: cycles/s per worker, ego-graph latency, guard latency, and /api/query
latency with graph expansion on and off, all in one run on a private embedded PostgreSQL.

    python bench/dream.py [--blocks 10000] [--seconds 20] [--rounds 1] [--graph-blocks 100000]
                          [--graph-links 500000] [--queries 200] [--out results.json]
                          [--phases dream,query,guard,graph]

- Dream: --blocks synthetic blocks in one scope (200 topics; a block's vector is its topic's
  centroid plus noise, its title and text use the topic's words), then `manage.py dream_run`
  in 1 and then 2 worker processes for --seconds each, deterministic mode. An untimed warm-up
  run comes first; before each phase the links are deleted, every block is due again and the
  tables are vacuumed, so both phases start from the same compact, warm state and write every
  link. Reported per worker: cycles (blocks) / loop seconds (process start-up excluded), the
  worker's CPU ms per cycle and PostgreSQL's, how busy the machine was and how much of it
  this benchmark used, how many backends waited for row locks (contention between the
  workers), and the 1 → 2 scaling ("linear" at ≥ 1.8x; with --rounds N the phases alternate
  N times and the best round of each counts). CPU ms per cycle x cycles/s says how many cores
  a rate needs: on a shared 2-core machine the 2-worker phase is short of cores long before
  the code stops scaling.
- Query: `/api/query` (HTTP through Django's test client, query vectors pre-cached so no model
  runs) with the stage list with and without `graph`, interleaved, on the links dream wrote.
- Guard: the store hint (the new text embedded by the real MiniLM, then the HNSW lookup) and
  the background check (nearest neighbours plus flagging) per block.
- Ego graph: --graph-blocks blocks and --graph-links random links bulk-inserted with SQL in a
  second tenant, then `GET /api/graph/ego` for random blocks at hops 1, 2 and 3.

Prints the results JSON, then a one-line summary as the last line. The 1-minute load average
is sampled around every phase: numbers taken while the machine is busy are labelled so.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import emit, percentile, start_in_process  # noqa: E402

TOPICS = 200
VOCAB = [
    "deploy", "server", "database", "index", "query", "cache", "queue", "worker", "token",
    "schema", "backup", "restore", "latency", "budget", "invoice", "meeting", "roadmap",
    "release", "incident", "rollback", "kernel", "network", "storage", "billing", "audit",
    "garden", "recipe", "travel", "flight", "hotel", "doctor", "school", "family", "music",
    "football", "camera", "bicycle", "coffee", "library", "museum",
]  # fmt: skip
LOADS: list[dict[str, Any]] = []


def load(phase: str) -> None:
    one, five, _ = os.getloadavg()
    LOADS.append({"phase": phase, "load1": round(one, 2), "load5": round(five, 2)})


def ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def stats(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 2),
        "p95_ms": round(percentile(values, 95), 2),
    }


# --- set-up ---------------------------------------------------------------------------------------


def start_services() -> Any:
    return start_in_process("ctx-bench-dream-")


def topic_vectors(rng: random.Random, dim: int) -> list[list[float]]:
    return [unit([rng.gauss(0, 1) for _ in range(dim)]) for _ in range(TOPICS)]


def unit(vec: list[float]) -> list[float]:
    norm = sum(x * x for x in vec) ** 0.5 or 1.0
    return [x / norm for x in vec]


def noisy(center: list[float], rng: random.Random, noise: float) -> list[float]:
    return unit([c + rng.gauss(0, noise) for c in center])


def seed_corpus(n: int, rng: random.Random) -> tuple[Any, Any]:
    """n blocks with vectors and one chunk each, dream state due now; returns (tenant, key)."""
    from ctx import services
    from ctx.models import EMBED_DIM, Block, Scope
    from ctx.services import content_hash
    from dream.services import states_ensure
    from retrieval.models import BlockChunk

    tenant = services.tenant_create(name="bench")
    key, _ = services.key_create(tenant=tenant, name="bench", home="bench:main")
    scope = Scope.objects.get(name="bench:main")
    centers = topic_vectors(rng, EMBED_DIM)
    # noise 0.06 per axis: same-topic cosines about 0.4-0.6, plus near pairs above 0.75
    blocks, chunks = [], []
    for i in range(n):
        t = rng.randrange(TOPICS)
        words = [VOCAB[(t * 7 + k) % len(VOCAB)] for k in range(3)]
        text = f"{' '.join(words)} note {i}: " + " ".join(rng.choice(words) for _ in range(30))
        vec = noisy(centers[t], rng, 0.035 if i % 3 else 0.02)
        block = Block(
            scope=scope,
            category=f"topic{t % 40}",
            title=f"{words[0]} {words[1]} {i}",
            content=text,
            content_hash=content_hash(text),
            tags=[words[2]],
            embedding=vec,
            embed_model="bench:synthetic",
        )
        blocks.append(block)
        chunks.append(BlockChunk(block=block, scope_id=block.scope_id, idx=0, embedding=vec))
    Block.objects.bulk_create(blocks, batch_size=1000)
    BlockChunk.objects.bulk_create(chunks, batch_size=1000)
    ids = [str(b.pk) for b in blocks]
    from django.utils import timezone

    for start in range(0, len(ids), 2000):
        states_ensure(ids[start : start + 2000], now=timezone.now())
    return tenant, key


# --- dream throughput ----------------------------------------------------------------------------


def reset_dream() -> None:
    """Back to the seeded state: no links, every block plain knowledge and due. Only rows that
    changed are rewritten, and the tables are vacuumed after, so every phase starts on the same
    compact tables and indexes (a blanket UPDATE of every block left 10k dead tuples in every
    block index, GIN pending lists included, and slowed the next phase's candidate lookups)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("DELETE FROM dream_link")
        cur.execute(
            """UPDATE ctx_block SET lifecycle = 'knowledge', superseded_by_id = NULL, quality = 0.5
               WHERE lifecycle <> 'knowledge' OR superseded_by_id IS NOT NULL OR quality <> 0.5"""
        )
        cur.execute(
            """UPDATE dream_dreamstate SET next_at = now() - random() * interval '1 hour',
               level = 0, cycles = 0, failures = 0, claimed_by = '', claim_token = NULL,
               claim_until = NULL, last_cycle_at = NULL"""
        )
        cur.execute("UPDATE dream_dreamtenant SET last_cycle_at = NULL")
        for table in ("dream_link", "dream_dreamstate", "dream_dreamtenant", "ctx_block"):
            cur.execute(f"VACUUM ANALYZE {table}")


def run_workers(count: int, seconds: float) -> list[dict[str, Any]]:
    env = {**os.environ, "CTX_LOG_LEVEL": "warning"}
    # --cycles: no cap but the time budget (the task default, CTX_DREAM_BATCH, would end a
    # fast phase early)
    cmd = [sys.executable, str(ROOT / "manage.py"), "dream_run", "--json", "--cycles", "10000000"]
    procs = [
        subprocess.Popen(
            [*cmd, "--seconds", str(seconds), "--worker", f"bench{i}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(count)
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=seconds + 300)
        lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
        if not lines:
            raise RuntimeError(f"dream_run failed:\n{stderr[-3000:]}")
        out.append(json.loads(lines[-1]))
    return out


def postgres_cpu() -> float:
    """CPU seconds of the private PostgreSQL so far: the postmaster and its exited children
    (the workers' backends, autovacuum) from /proc; 0.0 where /proc is not readable."""
    try:
        pid = (Path(os.environ["CTX_DATA_DIR"]) / "pg" / "postmaster.pid").read_text()
        fields = Path(f"/proc/{pid.split()[0]}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, KeyError, IndexError):
        return 0.0
    ticks = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine so far, from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return float(sum(fields) - idle), float(sum(fields))


class LockProbe:
    """Samples, every 50 ms on its own connection, how many client backends wait for a lock:
    tells contention between the workers (row locks of overlapping batches) from a busy
    machine."""

    SQL = """SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'), count(*)
             FROM pg_stat_activity WHERE backend_type = 'client backend'"""

    def __init__(self) -> None:
        self.samples: list[tuple[int, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from django.db import connection

        try:
            while not self._stop.wait(0.05):
                with connection.cursor() as cur:
                    cur.execute(self.SQL)
                    waiting, backends = cur.fetchone()
                self.samples.append((int(waiting), int(backends)))
        finally:
            connection.close()

    def __enter__(self) -> LockProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def mean_waiting(self) -> float:
        return round(sum(w for w, _ in self.samples) / max(1, len(self.samples)), 3)


def workers_phase(workers: int, seconds: float) -> dict[str, Any]:
    from dream.models import Link

    reset_dream()
    load(f"dream_{workers}w_start")
    db_cpu, (busy, total) = postgres_cpu(), machine_cpu()
    with LockProbe() as probe:
        started = time.perf_counter()
        runs = run_workers(workers, seconds)
        wall = time.perf_counter() - started
    db_cpu = postgres_cpu() - db_cpu
    busy_end, total_end = machine_cpu()
    busy, total = busy_end - busy, total_end - total
    load(f"dream_{workers}w_end")
    cycles = sum(r["cycles"] for r in runs)
    rates = [r["cycles"] / r["seconds"] for r in runs if r["seconds"]]
    ours = sum(r["cpu_seconds"] for r in runs) + db_cpu
    return {
        "per_worker_cycles_per_s": [round(r, 1) for r in rates],
        "total_cycles_per_s": round(sum(rates), 1),
        "worker_cpu_ms_per_cycle": round(
            1000 * sum(r["cpu_seconds"] for r in runs) / max(1, cycles), 2
        ),
        "postgres_cpu_ms_per_cycle": round(1000 * db_cpu / max(1, cycles), 2),
        # of all cores during the phase: the whole machine, and this benchmark's processes
        # (start-up included in the wall time, not in the CPU: a lower bound)
        "machine_busy_pct": round(100 * busy / total, 1) if total else None,
        "ours_pct": round(100 * ours / (wall * (os.cpu_count() or 1)), 1),
        "backends_waiting_for_locks": probe.mean_waiting(),
        "outcomes": [r["outcomes"] for r in runs],
        "links_created": sum(r["links_created"] for r in runs),
        "links_now": Link.objects.count(),
    }


def dream_phase(seconds: float, rounds: int) -> dict[str, Any]:
    reset_dream()
    run_workers(1, min(5.0, seconds))  # warm-up: caches, plans, the page layout after vacuum
    result: dict[str, Any] = {}
    for r in range(rounds):  # alternating, so a burst of load on the machine hits both
        for workers in (1, 2):
            phase = workers_phase(workers, seconds)
            result.setdefault(f"workers_{workers}_rounds", []).append(phase)
            print(f"dream round {r + 1}, {workers} worker(s): {json.dumps(phase)}", file=sys.stderr)
    for workers in (1, 2):
        phases = result[f"workers_{workers}_rounds"]
        result[f"workers_{workers}"] = max(phases, key=lambda ph: ph["total_cycles_per_s"])
    one = result["workers_1"]["total_cycles_per_s"]
    two = result["workers_2"]["total_cycles_per_s"]
    result["scaling_1_to_2"] = round(two / one, 2) if one else None  # best round of each
    result["linear"] = bool(one) and two / one >= 1.8
    return result


# --- query latency -------------------------------------------------------------------------------


def query_phase(key: Any, queries: int, rng: random.Random) -> dict[str, Any]:
    from django.test import Client

    from ctx import services
    from ctx.models import EMBED_DIM
    from retrieval.embeddings import cache_key, get_embedder
    from retrieval.models import EmbedCache

    _, raw = services.key_create(tenant=key.tenant, name="bench-q", home="bench:main")
    centers = topic_vectors(random.Random(7), EMBED_DIM)
    texts = []
    name = get_embedder().name  # the provider's name only: no model is loaded
    for i in range(queries):
        t = rng.randrange(TOPICS)
        words = [VOCAB[(t * 7 + k) % len(VOCAB)] for k in range(3)]
        text = f"what about {words[0]} and {words[1]} {i}"
        EmbedCache.objects.create(
            key=cache_key(text, name, key.tenant_id),
            model=name,
            vector=noisy(centers[t], rng, 0.03),
        )
        texts.append(text)
    client = Client(headers={"X-Context-Key": raw})
    on = ["gravity_cyclic", "gravity_linear", "graph", "supersedes"]
    off = ["gravity_cyclic", "gravity_linear", "supersedes"]
    from django.conf import settings

    timings: dict[str, list[float]] = {"on": [], "off": [], "graph_stage": []}
    added = 0
    for i, text in enumerate(texts * 2):  # first pass warms caches, second is measured
        for label, stages in (("on", on), ("off", off)) if i % 2 else (("off", off), ("on", on)):
            settings.CTX = {**settings.CTX, "CTX_QUERY_STAGES": stages}
            started = time.perf_counter()
            resp = client.post(
                "/api/query",
                {"query": text, "limit": 10, "explain": True},
                content_type="application/json",
            )
            took = ms(started)
            body = resp.json()
            if i >= len(texts):
                timings[label].append(took)
                if label == "on":
                    timings["graph_stage"].append(body["explain"]["stage_ms"]["graph"])
                    graph = body["explain"].get("graph")
                    added += len(graph.get("added", [])) if isinstance(graph, dict) else 0
    on_s, off_s = stats(timings["on"]), stats(timings["off"])
    return {
        "graph_on": on_s,
        "graph_off": off_s,
        "graph_stage": stats(timings["graph_stage"]),
        "added_p50_delta_ms": round(on_s["p50_ms"] - off_s["p50_ms"], 2),
        "neighbours_added_per_query": round(added / max(1, queries), 2),
    }


# --- guard ----------------------------------------------------------------------------------------


def guard_phase(rng: random.Random, samples: int) -> dict[str, Any]:
    from django.db import transaction

    from ctx.models import Block
    from ctx.principal import Principal
    from dream import guard

    blocks = list(Block.objects.filter(scope__name="bench:main").order_by("?")[:samples])
    background = []
    for block in blocks:
        with transaction.atomic():
            started = time.perf_counter()
            guard.check(guard.nearest([str(block.pk)], k=5))
            background.append(ms(started))
            transaction.set_rollback(True)
    result: dict[str, Any] = {"background_check": stats(background)}
    try:
        from retrieval.embeddings import get_embedder

        get_embedder().embed(["warm up"], kind="passage")  # loads the model once
    except Exception as exc:  # no model on this machine: report, do not fail
        result["store_hint"] = {"error": type(exc).__name__}
        return result
    principal = Principal(
        key=None,  # type: ignore[arg-type]
        tenant_id=0,
        tenant_name="bench",
        home_scope_id=0,
        read_scope_ids=frozenset(),
        write_scope_ids=frozenset(),
        scope_names={},
    )
    hints = []
    for block in blocks:
        block.content = block.content + f" variant {rng.random():.6f}"  # not saved
        started = time.perf_counter()
        guard.store_hints(principal, block)
        hints.append(ms(started))
    result["store_hint"] = stats(hints)
    return result


# --- ego graph ------------------------------------------------------------------------------------

_BLOCKS_SQL = """
INSERT INTO ctx_block (id, scope_id, category, title, content, tags, metadata, type, lifecycle,
    content_hash, archived, embed_model, content_times, quality, sensitivity, source,
    source_session, source_quote, created_at, updated_at)
SELECT gen_random_uuid(), %(scope)s, 'c' || (i %% 50), 'graph block ' || i, 'text ' || i,
    '{}', '{}', 'knowledge', 'knowledge', md5(i::text), false, '', '{}', 0.5, 'internal',
    '', '', '', now(), now()
FROM generate_series(1, %(n)s) AS i
"""

# Random pairs by position in one array of the scope's ids: joining a row-numbered CTE twice
# ran as a nested loop (500k x 100k) and never finished.
_LINKS_SQL = """
WITH ids AS (SELECT array_agg(id ORDER BY id) AS arr FROM ctx_block WHERE scope_id = %(scope)s),
pairs AS (
    SELECT (random() * (%(n)s - 1))::int AS a, (random() * (%(n)s - 1))::int AS b,
           (ARRAY['topical', 'factual', 'causal', 'recurrent'])[1 + (random() * 3)::int] AS c,
           0.5 + random() / 2 AS conf
    FROM generate_series(1, %(m)s))
INSERT INTO dream_link (source_id, target_id, link_class, scope_id, confidence, raw_confidence,
                        origin, evidence, pinned, created_at, updated_at)
SELECT CASE WHEN p.c IN ('topical', 'factual') THEN least(x, y) ELSE x END,
       CASE WHEN p.c IN ('topical', 'factual') THEN greatest(x, y) ELSE y END,
       p.c, %(scope)s, p.conf, p.conf, 'dream', '{}', false, now(), now()
FROM (SELECT p.*, ids.arr[p.a + 1] AS x, ids.arr[p.b + 1] AS y FROM pairs p, ids) p
WHERE p.a <> p.b
ON CONFLICT ON CONSTRAINT link_source_target_class_uniq DO NOTHING
"""


def graph_phase(n_blocks: int, n_links: int, samples: int) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client

    from ctx import services
    from ctx.models import Block, Scope
    from dream.models import Link

    tenant = services.tenant_create(name="graph")
    _, raw = services.key_create(tenant=tenant, name="graph", home="graph:main")
    scope = Scope.objects.get(name="graph:main")
    started = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute(_BLOCKS_SQL, {"scope": scope.pk, "n": n_blocks})
        while Link.objects.filter(scope=scope).count() < n_links:
            missing = n_links - Link.objects.filter(scope=scope).count()
            cur.execute(_LINKS_SQL, {"scope": scope.pk, "n": n_blocks, "m": missing})
        cur.execute("VACUUM ANALYZE dream_link")
        cur.execute("VACUUM ANALYZE ctx_block")
    seeded_s = round(time.perf_counter() - started, 1)
    ids = [str(i) for i in Block.objects.filter(scope=scope).values_list("id", flat=True)]
    client = Client(headers={"X-Context-Key": raw})
    rng = random.Random(3)
    result: dict[str, Any] = {
        "blocks": n_blocks,
        "links": Link.objects.filter(scope=scope).count(),
        "seed_seconds": seeded_s,
    }
    for hops in (1, 2, 3):
        timings, nodes = [], []
        for _ in range(samples + 10):
            started = time.perf_counter()
            resp = client.get("/api/graph/ego", {"block": rng.choice(ids), "hops": hops})
            timings.append(ms(started))
            nodes.append(len(resp.json()["nodes"]))
        result[f"hops_{hops}"] = {**stats(timings[10:]), "nodes_p50": percentile(nodes, 50)}
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--blocks", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--guard-samples", type=int, default=200)
    ap.add_argument("--graph-blocks", type=int, default=100_000)
    ap.add_argument("--graph-links", type=int, default=500_000)
    ap.add_argument("--graph-samples", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1, help="1- and 2-worker phases, alternating")
    ap.add_argument("--phases", default="dream,query,guard,graph", help="which to run")
    ap.add_argument("--out")
    args = ap.parse_args()
    rng = random.Random(42)
    load("start")
    handles = start_services()
    try:
        result = run_all(args, rng)
    finally:
        handles.stop()
    load("end")
    busy = max(entry["load1"] for entry in LOADS)
    result["load_average"] = LOADS
    result["contended"] = busy > (os.cpu_count() or 1)
    label = f" [UNDER CONTENTION: load {busy:.1f} on {os.cpu_count() or 1} cores]"
    summary = "; ".join(_summaries(result)) + (label if result["contended"] else "")
    emit(result, summary, args.out)


def _shown(phase: str, result: dict[str, Any]) -> dict[str, Any]:
    """Each phase's figures on stderr as it ends: a long run stopped later keeps them."""
    print(f"{phase}: {json.dumps(result)}", file=sys.stderr, flush=True)
    return result


def _summaries(result: dict[str, Any]) -> list[str]:
    out = []
    if d := result.get("dream"):
        out.append(
            f"dream: {d['workers_1']['total_cycles_per_s']} cycles/s with 1 worker, "
            f"{d['workers_2']['per_worker_cycles_per_s']} per worker with 2 "
            f"(x{d['scaling_1_to_2']}, {'linear' if d['linear'] else 'not linear'})"
        )
    if g := result.get("ego_graph"):
        out.append(
            f"ego p95 hops1/2/3 {g['hops_1']['p95_ms']}/{g['hops_2']['p95_ms']}/"
            f"{g['hops_3']['p95_ms']} ms at {g['blocks']} blocks/{g['links']} links"
        )
    if q := result.get("query"):
        out.append(
            f"query p50 {q['graph_off']['p50_ms']} -> {q['graph_on']['p50_ms']} ms with graph "
            f"(stage p50 {q['graph_stage']['p50_ms']} ms)"
        )
    if guard := result.get("guard"):
        out.append(
            f"guard hint p50 {guard.get('store_hint', {}).get('p50_ms')} ms, check p50 "
            f"{guard['background_check']['p50_ms']} ms"
        )
    return out


def run_all(args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    phases = set(args.phases.split(","))
    result: dict[str, Any] = {"benchmark": "dream", "blocks": args.blocks}
    started = time.perf_counter()
    _, key = seed_corpus(args.blocks, rng)
    result["seed_seconds"] = round(time.perf_counter() - started, 1)
    load("seeded")
    if "dream" in phases:
        result["dream"] = _shown("dream", dream_phase(args.seconds, args.rounds))
    if "query" in phases:
        load("query_start")
        result["query"] = _shown("query", query_phase(key, args.queries, rng))
    if "guard" in phases:
        load("guard_start")
        result["guard"] = _shown("guard", guard_phase(rng, args.guard_samples))
    if "graph" in phases:
        load("graph_start")
        result["ego_graph"] = _shown(
            "ego_graph", graph_phase(args.graph_blocks, args.graph_links, args.graph_samples)
        )
    load("end_of_phases")
    return result


if __name__ == "__main__":
    main()
