"""Web UI pages at 100k blocks: server-side time of home, search, browse, a block page and the
graph page, under row-level security; and the first page's weight, compressed.

    python bench/webui.py [--blocks 100000] [--repeat 20] [--vacuum | --settle 600] [--out F]

Right after the bulk load the table's visibility map is not set, so counts read table rows;
`--vacuum` runs VACUUM first, `--settle S` waits up to S seconds for autovacuum's own visit
(what a server left alone gets) and reports when it came.

The corpus, tenants, links and runtime role of bench/admin.py (LongMemEval user turns in four
scopes of tenant `bench`, a tenth as many in `other`, causal links between neighbours; not
embedded, so search runs its lexical arms and embeds only the question). Each page is
requested through Django's test client by the tenant's owner signed in at /sign-in; the time is
the whole request inside Django (middleware, session, the key's principal, the operations, the
template), no network. First page weight: the home page's HTML (gzip) plus its one stylesheet
as WhiteNoise serves it (the brotli file collectstatic wrote); the graph page adds Cytoscape.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.admin import as_runtime_role, collect_static, load, measure, seed  # noqa: E402
from bench.common import emit, start_in_process  # noqa: E402

TARGET_MS = 150.0
WEIGHT_TARGET_KB = 300.0


def pages(sample: list[str]) -> dict[str, list[str]]:
    return {
        "home": ["/"],
        "search": ["/search?q=recipe+for+dinner", "/search?q=flight+to+paris", "/search?q=doctor"],
        "search ?category": ["/search?q=recipe&category=cat7"],
        "browse": ["/blocks"],
        "browse ?category&type": ["/blocks?category=cat3&type=note"],
        "block page": [f"/blocks/{pk}" for pk in sample],
        "graph page": [f"/graph/{pk}" for pk in sample],
        "graph data (2 hops)": [f"/graph/{pk}/data?hops=2" for pk in sample],
    }


def _compressed(static: Path, name: str) -> int:
    manifest = json.loads((static / "staticfiles.json").read_text())
    return (static / (manifest["paths"][name] + ".br")).stat().st_size


def weight(client: Any, static: Path) -> dict[str, Any]:
    html = gzip.compress(client.get("/").content)
    css = _compressed(static, "frontend/ui.css")
    graph_js = _compressed(static, "frontend/ui-graph.js")
    cytoscape = _compressed(static, "frontend/vendor/cytoscape/cytoscape.min.js")
    home = len(html) + css
    return {
        "home_html_gzip_bytes": len(html),
        "ui_css_br_bytes": css,
        "first_page_kb": round(home / 1024, 1),
        "graph_page_extra_kb": round((graph_js + cytoscape) / 1024, 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    handles = start_in_process("ctx-bench-webui-")
    static = Path(tempfile.mkdtemp(prefix="ctx-bench-webui-static-"))
    try:
        started = time.perf_counter()
        seeded = seed(args.blocks)
        seed_s = round(time.perf_counter() - started, 1)
        settled = {}
        if args.vacuum:
            vacuum()
        elif args.settle:
            settled = {"autovacuum_after_s": settle(args.settle)}
        collect_static(static)
        as_runtime_role()
        return {"seed_s": seed_s, **settled, **timed(seeded, static, args)}
    finally:
        handles.stop()
        shutil.rmtree(static, ignore_errors=True)


def vacuum() -> None:
    """The steady state of a table autovacuum has visited: its visibility map set, so counts
    can be answered from an index alone (right after a bulk load each index entry is checked
    against the table's row)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE ctx_block")


def settle(limit: float) -> float | None:
    """Wait (at most `limit` seconds) for autovacuum's own visit of the blocks after the bulk
    load, as a server left alone gets it; the seconds it took, None if it did not come."""
    from django.db import connection

    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT last_autovacuum IS NOT NULL FROM pg_stat_user_tables"
                " WHERE relname = 'ctx_block'"
            )
            if cur.fetchone()[0]:
                return round(time.perf_counter() - started, 1)
        time.sleep(5)
    return None


def timed(seeded: dict[str, Any], static: Path, args: argparse.Namespace) -> dict[str, Any]:
    from django.test import Client

    client = Client()
    assert client.post("/sign-in", {"api_key": seeded["owner"]}).status_code == 302
    sample = seeded["sample"][: args.repeat]
    results: dict[str, Any] = {"load_before": load()}
    results["pages"] = {
        name: measure(client, urls, args.repeat) for name, urls in pages(sample).items()
    }
    results["weight"] = weight(client, static)
    results["load_after"] = load()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out")
    parser.add_argument(
        "--vacuum", action="store_true", help="VACUUM the blocks after seeding (steady state)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=0,
        help="instead, wait up to this many seconds for autovacuum to visit the blocks",
    )
    args = parser.parse_args()
    os.environ.setdefault("CTX_LOG_LEVEL", "warning")
    result = run(args)
    worst = max((p["p95_ms"], name) for name, p in result["pages"].items())
    kb = result["weight"]["first_page_kb"]
    summary = (
        f"web UI at {args.blocks:,} blocks: slowest p95 {worst[0]} ms ({worst[1]}), "
        f"{'within' if worst[0] <= TARGET_MS else 'over'} the {TARGET_MS:.0f} ms target; "
        f"first page {kb} KB compressed ({'within' if kb <= WEIGHT_TARGET_KB else 'over'} "
        f"{WEIGHT_TARGET_KB:.0f} KB); load {result['load_before']} -> {result['load_after']}"
    )
    emit(
        {
            "blocks": args.blocks,
            "repeat": args.repeat,
            "vacuumed": args.vacuum,
            "settle_limit_s": args.settle,
            "target_ms": TARGET_MS,
            **result,
        },
        summary,
        args.out,
    )


if __name__ == "__main__":
    main()
