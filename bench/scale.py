"""Scale curves: `/api/query` latency, `/api/store` throughput, index sizes, PostgreSQL memory
and disk at 100k-1M blocks, in one scope or across many tenants.

    python bench/scale.py base [--turns 40000] [--cache FILE]          # embed the base turns once
    python bench/scale.py load --data-dir D --blocks 100000 [--tenants 1] [--cache FILE]
    python bench/scale.py measure --data-dir D --url U [--queries 200] [--offset 20] [--out F]
    python bench/scale.py plot results.json [more.json …] docs/scale.png

Blocks are real LongMemEval_S user turns with their real embeddings (the server's own passage
embedder), *replicated with perturbation* to reach the size: copy k > 0 of a turn gets the
suffix " (copy k)" in its text and title (distinct content hashes and titles), and each of its
window vectors is the base vector plus Gaussian noise (sigma NOISE per axis), renormalised. Copy
0 is the turn itself. The loader writes ctx_block and ctx_blockchunk rows directly (COPY, as
the owner) into a running server's embedded PostgreSQL; tenants, scopes and keys are created
with ctx.services, so each tenant's key sees exactly its own scope through row-level security.
The two HNSW indexes are dropped before the COPY and recreated from their exact definitions
(pg_get_indexdef) after it; the build time is reported.

`measure` asks LongMemEval questions (never among the loaded turns) through HTTP, one tenant's
key per question, sequentially after a warm-up: the server's `timing_ms.total` and the client's
wall time, p50/p95. Then STORES blocks through `POST /api/store`, one at a time (the store
answers before the worker embeds: embedding is not included), and reads index sizes, the
database size, shared_buffers and the postgres processes' memory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile
from bench.store_search import corpus

NOISE = 0.015  # per axis: a copy's cosine to its base is about 0.96 (384 dimensions)
TITLE_CHARS = 60
CATEGORIES = 20
STORES = 300
DEFAULT_CACHE = Path(os.environ.get("CTX_SCALE_CACHE", "/tmp/ctx-scale/base.npz"))  # noqa: S108 - a cache, never the repo


# --- pure parts (tests/bench/test_scale.py) ------------------------------------------------------


def tenant_split(blocks: int, tenants: int) -> list[int]:
    """Blocks per tenant: as even as possible, the first tenants one more."""
    if tenants < 1 or blocks < 0:
        raise ValueError("need at least one tenant and no negative block count")
    share, extra = divmod(blocks, tenants)
    return [share + (1 if t < extra else 0) for t in range(tenants)]


def copy_text(text: str, copy: int) -> str:
    """Copy 0 is the turn itself; copy k carries a suffix so its content hash differs."""
    return text if copy == 0 else f"{text} (copy {copy})"


def copy_title(text: str, copy: int, serial: int) -> str:
    """Unique within a scope (the serial), readable (the turn's start)."""
    return f"{text[:TITLE_CHARS]} #{serial}" + ("" if copy == 0 else f" (copy {copy})")


def perturb(vectors: np.ndarray, rng: np.random.Generator, noise: float = NOISE) -> np.ndarray:
    """Each row plus Gaussian noise, renormalised to unit length."""
    noisy = vectors + rng.normal(0.0, noise, size=vectors.shape)
    norms = np.linalg.norm(noisy, axis=1, keepdims=True)
    result: np.ndarray = noisy / np.where(norms == 0, 1.0, norms)
    return result


def unit_mean(vectors: np.ndarray) -> np.ndarray:
    """A block's own vector: the normalised mean of its windows (retrieval.indexing)."""
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean)) or 1.0
    result: np.ndarray = mean / norm
    return result


# --- base vectors --------------------------------------------------------------------------------


def _setup_django(database_url: str | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    import django

    django.setup()


def base(args: argparse.Namespace) -> None:
    """Embed `turns` distinct user turns with the server's passage embedder; cache them."""
    _setup_django()
    from retrieval.chunking import windows
    from retrieval.embeddings import get_embedder

    texts, _ = corpus(args.turns)
    provider = get_embedder()  # the server's own, as configured
    # Each turn's windows with its copy-0 title; copies reuse them (the title's serial differs).
    owners, window_texts = [], []
    for pos, text in enumerate(texts):
        for w in windows(copy_title(text, 0, 0), text):
            owners.append(pos)
            window_texts.append(w)
    started = time.perf_counter()
    vectors = np.asarray(provider.embed(window_texts, kind="passage"), dtype=np.float32)
    seconds = time.perf_counter() - started
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.cache,
        vectors=vectors,
        owners=np.asarray(owners),
        texts=np.asarray(texts),
        model=np.asarray(provider.name),
    )
    result = {
        "turns": len(texts),
        "windows": len(window_texts),
        "embed_s": round(seconds, 1),
        "texts_per_s": round(len(window_texts) / seconds, 1),
        "model": provider.name,
        "cache": str(args.cache),
    }
    emit(
        {"benchmark": "scale_base", **result},
        f"scale base: {len(texts)} turns, {len(window_texts)} windows embedded at "
        f"{result['texts_per_s']}/s ({provider.name})",
    )


# --- load ----------------------------------------------------------------------------------------


class Base:
    """The cached base turns: texts, window vectors and each turn's window rows."""

    def __init__(self, path: Path) -> None:
        data = np.load(path)
        self.texts: list[str] = [str(t) for t in data["texts"]]
        self.model = str(data["model"])  # the blocks' embed_model: the embedder that made them
        self.vectors: np.ndarray = data["vectors"]
        owners = data["owners"]
        self.starts = np.searchsorted(owners, np.arange(len(self.texts)))
        self.ends = np.searchsorted(owners, np.arange(len(self.texts)), side="right")


def owner_url(data_dir: Path) -> str:
    """The running embedded PostgreSQL as its owner (what migrations use): row-level security
    does not apply to the owner."""
    from pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(data_dir / "pg")
    if info is None:
        raise SystemExit(f"no PostgreSQL running in {data_dir}: start the server first")
    return str(info.get_uri())


def _attach(data_dir: Path) -> None:
    """Django in this process on the server's own data dir (its secret key, database, Redis)."""
    os.environ["CTX_DATA_DIR"] = str(data_dir)
    sock = data_dir / "run" / "redis.sock"
    if sock.exists():
        os.environ["REDIS_URL"] = f"redis+socket://{sock}"
    _setup_django(owner_url(data_dir))


def make_tenants(count: int) -> list[dict[str, Any]]:
    """Tenants `scale0000…` with their main scope and one member key each (ctx.services)."""
    from ctx import services
    from ctx.models import Scope

    made = []
    for t in range(count):
        name = f"scale{t:04d}"
        tenant = services.tenant_create(name=name)
        _, secret = services.key_create(tenant=tenant, name="scale", home=f"{name}:main")
        scope = Scope.objects.get(name=f"{name}:main")
        made.append({"tenant": name, "scope": scope.name, "scope_id": scope.id, "key": secret})
    return made


def batches(first: int, count: int, size: int) -> Iterator[range]:
    for start in range(first, first + count, size):
        yield range(start, min(first + count, start + size))


def block_rows(
    base: Base, serials: range, scope_id: int, rng: np.random.Generator, now: datetime
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """ctx_block and ctx_blockchunk rows (COPY order: BLOCK_COLUMNS, CHUNK_COLUMNS)."""
    from psycopg.types.json import Jsonb

    n = len(base.texts)
    blocks: list[tuple[Any, ...]] = []
    chunks: list[tuple[Any, ...]] = []
    for serial in serials:
        pos, copy = serial % n, serial // n
        windows = base.vectors[base.starts[pos] : base.ends[pos]].astype(np.float64)
        if copy:
            windows = perturb(windows, rng)
        block_id = uuid.uuid4()
        text = copy_text(base.texts[pos], copy)
        title = copy_title(base.texts[pos], copy, serial)
        blocks.append(
            (block_id, scope_id, f"cat{serial % CATEGORIES}", title, text, _hash(text), [],
             Jsonb({}), "knowledge", "knowledge", False, unit_mean(windows).astype(np.float32),
             base.model, [], 0.5, "internal", "bench:scale", "", "", now, now)
        )  # fmt: skip
        chunks.extend((block_id, scope_id, i, w.astype(np.float32)) for i, w in enumerate(windows))
    return blocks, chunks


def _hash(text: str) -> str:
    from ctx.services import content_hash

    return content_hash(text)


BLOCK_COLUMNS = (
    "id, scope_id, category, title, content, content_hash, tags, metadata, type, lifecycle, "
    "archived, embedding, embed_model, content_times, quality, sensitivity, source, "
    "source_session, source_quote, created_at, updated_at"
)
CHUNK_COLUMNS = "block_id, scope_id, idx, embedding"
# Binary COPY: pgvector's binary form is packed by numpy, where the text form cost 0.4 ms a
# vector to format in Python (measured), 15 minutes for a million blocks and their windows.
BLOCK_TYPES = [
    "uuid", "int8", "varchar", "varchar", "text", "varchar", "varchar[]", "jsonb", "varchar",
    "varchar", "bool", "vector", "varchar", "timestamptz[]", "float8", "varchar", "varchar",
    "varchar", "text", "timestamptz", "timestamptz",
]  # fmt: skip
CHUNK_TYPES = ["uuid", "int8", "int2", "vector"]
HNSW = ("block_embedding_hnsw", "chunk_embedding_hnsw")


def drop_hnsw(cur: Any) -> list[str]:
    """Drop the two HNSW indexes; return their exact definitions to build them again."""
    cur.execute(
        "SELECT pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname = ANY(%s)", [list(HNSW)]
    )
    definitions = [row[0] for row in cur.fetchall()]
    for name in HNSW:
        cur.execute(f"DROP INDEX IF EXISTS {name}")
    return definitions


def copy_rows(
    cur: Any, table: str, columns: str, types: list[str], rows: Sequence[tuple[Any, ...]]
) -> None:
    with cur.copy(f"COPY {table} ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)


def load(args: argparse.Namespace) -> None:
    """Tenants through ctx.services, then blocks and windows by COPY, then the HNSW builds."""
    _attach(args.data_dir)
    from django.db import connection

    from retrieval import termstats

    base = Base(args.cache)
    started = time.perf_counter()
    tenants = make_tenants(args.tenants)
    tenants_s = time.perf_counter() - started
    (args.data_dir / "scale-keys.json").write_text(json.dumps(tenants))
    rng = np.random.default_rng(args.seed)
    now = datetime.now(UTC)
    from pgvector.psycopg import register_vector

    connection.ensure_connection()
    raw = connection.connection  # psycopg's own connection: COPY
    raw.autocommit = True
    register_vector(raw)
    with raw.cursor() as cur:
        definitions = drop_hnsw(cur)
        started = time.perf_counter()
        first = 0
        for tenant, count in zip(tenants, tenant_split(args.blocks, args.tenants), strict=True):
            for serials in batches(first, count, 5000):
                b_rows, c_rows = block_rows(base, serials, tenant["scope_id"], rng, now)
                copy_rows(cur, "ctx_block", BLOCK_COLUMNS, BLOCK_TYPES, b_rows)
                copy_rows(cur, "ctx_blockchunk", CHUNK_COLUMNS, CHUNK_TYPES, c_rows)
                if serials.stop % 50000 == 0:
                    print(
                        f"{serials.stop} blocks, {time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                    )
            first += count
        copy_s = time.perf_counter() - started
        builds = build_hnsw(cur, definitions, args.maintenance_work_mem)
        started = time.perf_counter()
        cur.execute("VACUUM ANALYZE ctx_block")
        cur.execute("VACUUM ANALYZE ctx_blockchunk")
        vacuum_s = time.perf_counter() - started
        cur.execute("SELECT count(*) FROM ctx_blockchunk")
        windows = cur.fetchone()[0]
    started = time.perf_counter()
    counted = termstats.refresh_due()
    result = {
        "blocks": args.blocks,
        "tenants": args.tenants,
        "windows": windows,
        "base_turns": len(base.texts),
        "noise_sigma": NOISE,
        "tenants_s": round(tenants_s, 1),
        "copy_s": round(copy_s, 1),
        "copy_blocks_per_s": round(args.blocks / copy_s, 1),
        "hnsw_build_s": builds,
        "maintenance_work_mem": args.maintenance_work_mem,
        "vacuum_analyze_s": round(vacuum_s, 1),
        "term_stats_s": round(time.perf_counter() - started, 1),
        "term_stats_scopes": len(counted),
        "load1": round(os.getloadavg()[0], 2),
    }
    (args.data_dir / "scale-load.json").write_text(json.dumps(result))  # for `measure`
    emit(
        {"benchmark": "scale_load", **result},
        f"scale load: {args.blocks} blocks across {args.tenants} tenants ({windows} windows): "
        f"COPY {result['copy_s']} s, HNSW builds {builds} s",
        args.out,
    )


def build_hnsw(cur: Any, definitions: list[str], memory: str) -> dict[str, float]:
    """Each HNSW index again from its definition; seconds per index."""
    cur.execute(f"SET maintenance_work_mem = '{memory}'")
    took = {}
    for definition in definitions:
        started = time.perf_counter()
        cur.execute(definition)
        took[definition.split()[2]] = round(time.perf_counter() - started, 1)
        print(f"{definition.split()[2]}: {took[definition.split()[2]]} s", file=sys.stderr)
    return took


# --- measure -------------------------------------------------------------------------------------


def _post(client: httpx.Client, path: str, key: str, body: dict[str, Any]) -> httpx.Response:
    """POST with the tenant's key; a 429 (the per-key rate limit) waits and asks again."""
    while True:
        resp = client.post(path, json=body, headers={"X-Context-Key": key})
        if resp.status_code != 429:
            resp.raise_for_status()
            return resp
        time.sleep(float(resp.headers.get("Retry-After", "1")))


def time_queries(
    client: httpx.Client, tenants: list[dict[str, Any]], questions: list[str], first: int
) -> dict[str, Any]:
    """Question j asked by tenant (first + j) mod T, in its own scope: server `timing_ms.total`
    and client wall time; the hit counts say the scope answered."""
    server, wall, hits = [], [], []
    parts: dict[str, list[float]] = {}
    for j, q in enumerate(questions):
        tenant = tenants[(first + j) % len(tenants)]
        started = time.perf_counter()
        resp = _post(
            client, "/api/query", tenant["key"], {"query": q, "scope": tenant["scope"], "limit": 10}
        )
        wall.append((time.perf_counter() - started) * 1000)
        body = resp.json()
        server.append(body["timing_ms"]["total"])
        hits.append(len(body.get("sources", [])))
        for name, ms in body["timing_ms"].items():
            parts.setdefault(name, []).append(ms)
    return {
        "queries": len(questions),
        "server_p50_ms": round(percentile(server, 50), 2),
        "server_p95_ms": round(percentile(server, 95), 2),
        "client_p50_ms": round(percentile(wall, 50), 2),
        "client_p95_ms": round(percentile(wall, 95), 2),
        "server_parts_p50_ms": {k: round(percentile(v, 50), 2) for k, v in parts.items()},
        "mean_hits": round(sum(hits) / len(hits), 2),
        "tenants_asked": len({(first + j) % len(tenants) for j in range(len(questions))}),
    }


def time_stores(
    client: httpx.Client, tenant: dict[str, Any], texts: list[str], tag: str
) -> dict[str, Any]:
    """One `POST /api/store` after another into the tenant's scope (not embedded yet when it
    answers: the worker embeds afterwards, so embedding is not included)."""
    wall = []
    started = time.perf_counter()
    for i, text in enumerate(texts):
        body = {
            "scope": tenant["scope"],
            "category": "stored",
            "title": f"{tag} {i}: {text[:60]}",
            "content": text,
        }
        one = time.perf_counter()
        _post(client, "/api/store", tenant["key"], body)
        wall.append((time.perf_counter() - one) * 1000)
    seconds = time.perf_counter() - started
    return {
        "stores": len(texts),
        "stores_per_s": round(len(texts) / seconds, 1),
        "store_p50_ms": round(percentile(wall, 50), 2),
        "store_p95_ms": round(percentile(wall, 95), 2),
        "store_mean_chars": round(sum(map(len, texts)) / len(texts)),
    }


_SIZES = """SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c
    ON c.oid = i.indexrelid WHERE i.indrelid = %s::regclass ORDER BY 2 DESC"""


def database_facts(data_dir: Path) -> dict[str, Any]:
    """Index sizes of ctx_block and ctx_blockchunk, table sizes, the database size and
    shared_buffers (MB), and the postgres processes' memory."""
    import psycopg
    from pgserver.utils import PostmasterInfo

    mb = 1024 * 1024
    facts: dict[str, Any] = {"index_mb": {}}
    with psycopg.connect(owner_url(data_dir)) as conn, conn.cursor() as cur:
        for table in ("ctx_block", "ctx_blockchunk"):
            cur.execute(_SIZES, [table])
            facts["index_mb"].update({name: round(size / mb, 1) for name, size in cur.fetchall()})
            cur.execute(
                "SELECT pg_table_size(%s::regclass), pg_indexes_size(%s::regclass)", [table, table]
            )
            heap, indexes = cur.fetchone()  # type: ignore[misc]
            facts[f"{table}_table_mb"] = round(heap / mb, 1)
            facts[f"{table}_indexes_mb"] = round(indexes / mb, 1)
        cur.execute("SELECT pg_database_size(current_database())")
        facts["database_mb"] = round(cur.fetchone()[0] / mb, 1)  # type: ignore[index]
        cur.execute("SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'")
        facts["shared_buffers_mb"] = round(cur.fetchone()[0] / mb, 1)  # type: ignore[index]
    info = PostmasterInfo.read_from_pgdata(data_dir / "pg")
    assert info is not None
    facts.update(postgres_memory(info.pid))
    return facts


def postgres_memory(postmaster: int) -> dict[str, Any]:
    """RSS (counts shared buffers once per process that touched them) and PSS (shared pages
    split among the processes: sums to the real footprint) of the postmaster and its children."""
    pids = [postmaster] + [
        int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _ppid(p) == postmaster
    ]
    rss = pss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            continue  # a backend that ended meanwhile
    return {
        "pg_processes": len(pids),
        "pg_rss_mb": round(rss / 1024, 1),
        "pg_pss_mb": round(pss / 1024, 1),
    }


def _ppid(proc: Path) -> int:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def forget_question_vectors(data_dir: Path) -> int:
    """Empty the stored query-vector cache (ctx_embedcache), so the questions are new to a
    server started afterwards (its in-process cache starts empty); returns the rows deleted."""
    import psycopg

    with psycopg.connect(owner_url(data_dir)) as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM ctx_embedcache")
        return int(cur.rowcount)


def concurrent_queries(
    url: str, tenants: list[dict[str, Any]], questions: list[str], first: int, clients: int
) -> dict[str, Any]:
    """The questions split among `clients` threads, each with its own connection: queries/s
    and the server's times under that concurrency."""
    server: list[float] = []

    def run(part: int) -> None:
        with httpx.Client(base_url=url, timeout=600) as client:
            for j in range(part, len(questions), clients):
                tenant = tenants[(first + j) % len(tenants)]
                body = {"query": questions[j], "scope": tenant["scope"], "limit": 10}
                server.append(
                    _post(client, "/api/query", tenant["key"], body).json()["timing_ms"]["total"]
                )

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(run, range(clients)))
    seconds = time.perf_counter() - started
    return {
        "clients": clients,
        "queries": len(questions),
        "queries_per_s": round(len(questions) / seconds, 2),
        "server_p50_ms": round(percentile(server, 50), 2),
        "server_p95_ms": round(percentile(server, 95), 2),
    }


def semantic_check(client: httpx.Client, tenant: dict[str, Any], question: str) -> dict[str, Any]:
    """One explained query: the question must have been embedded (a provider trust below the
    question's level, e.g. CTX_EMBED_TRUST=public, leaves the lexical arms alone and times a
    different system); returns the semantic arm's hit count."""
    body = {"query": question, "scope": tenant["scope"], "limit": 10, "explain": True}
    explain = _post(client, "/api/query", tenant["key"], body).json().get("explain") or {}
    if "embedding" in explain or "embedding_error" in explain:
        raise SystemExit(f"the question was not embedded: {explain.get('embedding')}")
    return {"explain_keys": sorted(explain)}


def measure(args: argparse.Namespace) -> None:
    tenants = json.loads((args.data_dir / "scale-keys.json").read_text())
    turns, questions = corpus(args.store_from + args.stores)
    new_texts = turns[args.store_from :]
    timed_q = questions[args.offset : args.offset + args.queries]
    load_before = [round(x, 2) for x in os.getloadavg()]
    with httpx.Client(base_url=args.url, timeout=600) as client:
        time_queries(client, tenants, questions[: args.warmup], 0)  # warm-up
        checked = semantic_check(client, tenants[0], questions[0])
        timed = time_queries(client, tenants, timed_q, args.offset)
        load_queries = [round(x, 2) for x in os.getloadavg()]
        repeated = time_queries(client, tenants, timed_q[: args.repeated], args.offset)
        stores = time_stores(client, tenants[0], new_texts, args.tag)
    concurrent = None
    if args.clients > 1:
        first = args.offset + args.queries
        concurrent = concurrent_queries(
            args.url,
            tenants,
            questions[first : first + args.concurrent_queries],
            first,
            args.clients,
        )
    facts = database_facts(args.data_dir)
    loaded = args.data_dir / "scale-load.json"
    row = {
        "label": args.label,
        "blocks": json.loads(loaded.read_text())["blocks"] if loaded.exists() else None,
        "tenants": len(tenants),
        "web_workers": args.web_workers,
        "celery_workers": args.celery_workers,
        "questions": [args.offset, args.offset + len(timed_q)],
        **timed,
        "repeated": {k: repeated[k] for k in ("queries", "server_p50_ms", "server_p95_ms")},
        "concurrent": concurrent,
        "semantic_check": checked,
        **stores,
        **facts,
        "load_average_before": load_before,
        "load_average_after_queries": load_queries,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    emit(
        {"benchmark": "scale", "results": [row]},
        f"scale: {row['blocks']} blocks, {row['tenants']} tenants: /api/query p50 "
        f"{row['server_p50_ms']} ms p95 {row['server_p95_ms']} ms (server, new questions), "
        f"{row['stores_per_s']} stores/s, database {row['database_mb']} MB",
        args.out,
    )


def forget(args: argparse.Namespace) -> None:
    print(f"scale forget: {forget_question_vectors(args.data_dir)} stored question vectors deleted")


# --- plot ----------------------------------------------------------------------------------------


def plot(args: argparse.Namespace) -> None:
    """p50 and p95 against blocks, log-log, one line per kind of run (from `measure` JSONs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for f in args.results for r in json.loads(Path(f).read_text())["results"]]
    series: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        series.setdefault(_series(r), []).append(r)
    fig, (ax, store) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, points in series.items():
        points.sort(key=lambda r: r["blocks"])
        x = [r["blocks"] for r in points]
        for stat, style in (("server_p50_ms", "o-"), ("server_p95_ms", "s--")):
            ax.plot(x, [r[stat] for r in points], style, label=f"{name}: {stat[7:10]}")
        store.plot(x, [r["store_p50_ms"] for r in points], "o-", label=f"{name}: p50")
    targets = (
        (25, "target p50, 100k one scope"),
        (30, "target p50, 1M across 1,000 tenants"),
        (60, "target p50, 1M one scope"),
    )
    for target, label in targets:
        ax.axhline(target, color="grey", linewidth=0.6, linestyle=":")
        ax.text(0.01, target, label, transform=ax.get_yaxis_transform(), fontsize=7, color="grey")
    ax.set_title("/api/query, new questions (server time)")
    ax.set_ylabel("ms")
    store.set_title("/api/store, one at a time (client wall time)")
    for a in (ax, store):
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel("blocks")
        a.legend(fontsize=7)
        a.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)
    print(f"scale plot: {len(rows)} rows, {len(series)} series -> {args.png}")


def _series(row: dict[str, Any]) -> str:
    scope = "one scope" if row["tenants"] == 1 else f"{row['tenants']} tenants"
    return f"{scope}, {row['web_workers']} web + {row['celery_workers']} workers"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("base", help="embed the base turns once and cache their vectors")
    p.add_argument("--turns", type=int, default=40000)
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p = sub.add_parser("load", help="tenants, blocks and windows into a running server's database")
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--blocks", type=int, required=True)
    p.add_argument("--tenants", type=int, default=1)
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--maintenance-work-mem", default="4GB")
    p.add_argument("--out")
    p = sub.add_parser("measure", help="time queries and stores; read sizes and memory")
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--offset", type=int, default=20, help="the first question timed")
    p.add_argument("--stores", type=int, default=STORES, help="blocks stored one at a time")
    p.add_argument("--store-from", type=int, default=60000, help="stored turns start here")
    p.add_argument("--tag", default="stored", help="title prefix of the stored blocks")
    p.add_argument("--label", default="")
    p.add_argument("--web-workers", type=int, default=2)
    p.add_argument("--celery-workers", type=int, default=2)
    p.add_argument("--repeated", type=int, default=50, help="timed questions asked again")
    p.add_argument("--clients", type=int, default=4, help="threads of the concurrent pass")
    p.add_argument("--concurrent-queries", type=int, default=120)
    p.add_argument("--out")
    p = sub.add_parser("forget", help="empty the stored question vectors (restart the server)")
    p.add_argument("--data-dir", type=Path, required=True)
    p = sub.add_parser("plot", help="log-log PNG of the latency rows")
    p.add_argument("results", nargs="+", help="JSON files written by `measure --out`")
    p.add_argument("png")
    args = ap.parse_args()
    {"base": base, "load": load, "measure": measure, "forget": forget, "plot": plot}[args.command](
        args
    )


if __name__ == "__main__":
    main()
