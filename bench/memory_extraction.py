"""Extraction throughput per worker, through the task (memory.tasks.extract_sources).

LongMemEval_S haystack sessions (user and assistant turns, as a conversation import keeps
them) are imported into a private embedded PostgreSQL through ingest.services.import_batch;
the after-commit hook only queues task messages (nobody consumes them here). Then this
process runs the task body over every session, as one Celery worker process would: read the
messages, extract, write the fact and entity blocks (one upsert per source, the block hooks:
temporal anchors, dream bookkeeping), provenance rows, links and supersession chains, and the
extraction record. Not included: the broker round trip and the embeddings of the new blocks
(queued, not run). A second pass over the unchanged sessions measures the idempotent no-op.

    python bench/memory_extraction.py [--sessions 300] [--out FILE]

Prints JSON, then a one-line summary with the machine and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, machine, start_in_process
from bench.longmemeval.data import load_entries, parse_date


def conversations(limit: int) -> list[dict[str, Any]]:
    """The first `limit` distinct haystack sessions of LongMemEval_S, in the import shape."""
    seen: dict[str, dict[str, Any]] = {}
    for entry in load_entries("s"):
        sessions = zip(
            entry["haystack_session_ids"],
            entry["haystack_dates"],
            entry["haystack_sessions"],
            strict=True,
        )
        for sid, day, turns in sessions:
            if sid in seen or len(seen) >= limit:
                continue
            stamp = parse_date(day).isoformat() + "Z"
            messages = [
                {"index": i, "role": t["role"], "text": t["content"], "timestamp": stamp}
                for i, t in enumerate(turns)
                if t["role"] in ("user", "assistant") and t["content"].strip()
            ]
            if messages:
                seen[sid] = {"tool": "lme", "external_id": sid, "messages": messages}
        if len(seen) >= limit:
            break
    return list(seen.values())


def load(sessions: list[dict[str, Any]]) -> tuple[list[str], int, int]:
    """Import the sessions; returns the extraction source keys, messages and characters."""
    from django.db import transaction

    from ctx import services
    from ctx.selectors import principal_from_key
    from ingest import services as ingest
    from ingest.batch import ImportInput, as_batch

    tenant = services.tenant_create(name="bench")
    key, _ = services.key_create(tenant=tenant, name="bench", home="bench:main")
    principal = principal_from_key(key)
    keys: list[str] = []
    for start in range(0, len(sessions), 50):
        batch = as_batch(ImportInput.parse({"sessions": sessions[start : start + 50]}))
        with transaction.atomic():
            result = ingest.import_batch(
                principal=principal, scope_id=principal.home_scope_id, batch=batch
            )
        keys += [f"session:{row['id']}" for row in result["sessions"]]
    messages = sum(len(s["messages"]) for s in sessions)
    chars = sum(len(m["text"]) for s in sessions for m in s["messages"])
    return keys, messages, chars


def timed(keys: list[str]) -> tuple[float, float, list[dict[str, Any]]]:
    from memory.tasks import extract_sources

    wall, cpu = time.perf_counter(), time.process_time()
    out: list[dict[str, Any]] = []
    for start in range(0, len(keys), 64):  # one task message per 64 sources (memory.tasks)
        out += extract_sources(keys[start : start + 64])
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--out")
    args = parser.parse_args()
    handles = start_in_process("ctx-bench-memory-")
    try:
        load_before = os.getloadavg()
        keys, messages, chars = load(conversations(args.sessions))
        wall, cpu, runs = timed(keys)
        again_wall, _, again = timed(keys)
        load_after = os.getloadavg()
    finally:
        handles.stop()
    facts = sum(int(r.get("facts", 0)) for r in runs)
    result: dict[str, Any] = {
        "benchmark": "memory_extraction",
        "sessions": len(keys),
        "messages": messages,
        "chars_per_message": round(chars / max(1, messages)),
        "first_pass": {
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "messages_per_s_wall": round(messages / wall, 1),
            "messages_per_s_cpu": round(messages / cpu, 1),
            "statuses": sorted({str(r["status"]) for r in runs}),
            "facts": facts,
            "entities": sum(int(r.get("entities", 0)) for r in runs),
            "links": sum(int(r.get("links", 0)) for r in runs),
        },
        "unchanged_pass": {
            "wall_s": round(again_wall, 2),
            "messages_per_s_wall": round(messages / again_wall, 1),
            "statuses": sorted({str(r["status"]) for r in again}),
        },
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
    }
    cpu_name = machine()["cpu"]
    summary = (
        f"memory extraction through the task: {messages} messages ({len(keys)} sessions, "
        f"~{result['chars_per_message']} chars) "
        f"{result['first_pass']['messages_per_s_wall']}/s wall, "
        f"{result['first_pass']['messages_per_s_cpu']}/s CPU, {facts} facts; unchanged "
        f"{result['unchanged_pass']['messages_per_s_wall']}/s | {cpu_name}, "
        f"{os.cpu_count()} cores, load {load_before[0]:.1f} -> {load_after[0]:.1f}"
    )
    emit(result, summary, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
