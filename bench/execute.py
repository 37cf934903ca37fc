"""Local execution benchmark (issue 25): `execute` overhead and bytes returned vs raw.

    python bench/execute.py [--runs 50] [--log-kb 60] [--url U --key K] [--out results.json]

1. Overhead: the bridge's `execute` of `echo hi` (a shell in the sandbox: deny rules read,
   namespaces, limits, temp HOME), timed in-process as the long-lived bridge runs it: start
   to the first byte of stdout, and the whole call; p50/p95 over --runs.
2. Shrinking: a generated --log-kb log (seeded, with three planted lines) printed by
   `execute_file` with an intent per question, through a real server (--url/--key, else
   CTX_BASE_URL/CTX_KEY, else a private one started for the run): bytes returned into the
   context (the tool's text) vs the raw output, and whether the answer is in them.
Prints the results JSON, then a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "cli"))
from bench.common import emit, percentile, server_from_args  # noqa: E402
from ctx_cli.sandbox import local_tools  # noqa: E402
from ctx_cli.sandbox.core import Sandbox  # noqa: E402

SERVICES = ("auth", "billing", "search", "mailer", "gateway", "scheduler")
PLANTED = (
    ("ERROR payments: connection refused by ledger-db-7 port 5432", "which database refused"
     " the connection", "ledger-db-7"),
    ("WARN scheduler: nightly backup job exceeded its window by 47 minutes", "how late was"
     " the backup job", "47 minutes"),
    ("FATAL gateway: certificate for api.example.org expired on 2026-11-20", "which certificate"
     " expired", "api.example.org"),
)  # fmt: skip


def generate_log(kb: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    size, target = 0, kb * 1024
    while size < target:
        i = len(lines)
        service = rng.choice(SERVICES)
        line = (
            f"2026-11-27T{10 + i // 3600 % 10:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z INFO "
            f"{service}: request {i} served in {rng.randint(3, 90)} ms"
        )
        lines.append(line)
        size += len(line) + 1
    for n, (text, _, _) in enumerate(PLANTED):
        at = len(lines) * (n + 1) // (len(PLANTED) + 1)
        lines[at] = f"2026-11-27T11:00:{n:02d}Z {text}"
    return "\n".join(lines) + "\n"


def _tools(url: str, key: str | None, home: Path) -> local_tools.LocalTools:
    environ = {**os.environ, "HOME": str(home), "CTX_SESSION_ID": "bench"}
    environ["XDG_STATE_HOME"] = str(home / "state")  # the session figures stay in the run's folder
    sandbox = Sandbox(base_url=url, key=key, session="bench", environ=environ)

    def no_relay(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError(f"{name} is not relayed in this benchmark")

    return local_tools.LocalTools(sandbox, no_relay)


def bench_overhead(tools: local_tools.LocalTools, runs: int) -> dict[str, Any]:
    first, total = [], []
    for i in range(runs + 2):  # two warm-ups (the namespace probe, page cache)
        started = time.perf_counter()
        result = tools.call("execute", {"language": "shell", "code": "echo hi"})
        elapsed = (time.perf_counter() - started) * 1000
        payload = result["structuredContent"]
        assert payload["output"] == "hi\n", payload
        if i >= 2:
            total.append(elapsed)
            first.append(tools.sandbox.last_first_byte_ms or elapsed)
    return {
        "runs": runs,
        "first_byte_p50_ms": round(percentile(first, 50), 1),
        "first_byte_p95_ms": round(percentile(first, 95), 1),
        "call_p50_ms": round(percentile(total, 50), 1),
        "call_p95_ms": round(percentile(total, 95), 1),
        "isolation": payload["isolation"],
    }


def bench_shrink(tools: local_tools.LocalTools, kb: int, folder: Path) -> dict[str, Any]:
    log = folder / "app.log"
    log.write_text(generate_log(kb))
    log.chmod(0o644)
    rows = []
    for _, intent, answer in PLANTED:
        started = time.perf_counter()
        result = tools.call(
            "execute_file", {"path": str(log), "language": "shell", "code": "cat", "intent": intent}
        )
        text = result["content"][0]["text"]
        payload = result["structuredContent"]
        rows.append(
            {
                "intent": intent,
                "mode": payload.get("mode"),
                "raw_bytes": payload.get("output_bytes"),
                "returned_bytes": len(text.encode()),
                "ratio": round(len(text.encode()) / max(1, payload.get("output_bytes") or 1), 4),
                "answer_present": answer in payload.get("output", ""),
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
        )
    raw = sum(r["raw_bytes"] or 0 for r in rows)
    returned = sum(r["returned_bytes"] for r in rows)
    return {
        "log_bytes": log.stat().st_size,
        "questions": rows,
        "ratio": round(returned / max(1, raw), 4),
        "answers_present": sum(r["answer_present"] for r in rows),
    }


def summary_line(result: dict[str, Any]) -> str:
    o, s = result["overhead"], result["shrink"]
    return (
        f"execute: echo first byte p50 {o['first_byte_p50_ms']} ms / p95 "
        f"{o['first_byte_p95_ms']} ms (call p50 {o['call_p50_ms']} ms); "
        f"{s['log_bytes'] // 1024} KB log: returned {s['ratio']:.1%} of raw, "
        f"answer in {s['answers_present']}/{len(s['questions'])}"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("CTX_BASE_URL"))
    parser.add_argument("--key", default=os.environ.get("CTX_KEY"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--log-kb", type=int, default=60)
    parser.add_argument("--out", help="also write the JSON here")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ctx-bench-exec-"))
    folder.chmod(0o755)  # the sandbox runs as nobody under root
    try:
        with server_from_args(args.url, args.key) as server:
            tools = _tools(server.url, server.key, folder)
            result: dict[str, Any] = {"server": server.url, "load_avg_start": os.getloadavg()}
            result["overhead"] = bench_overhead(tools, args.runs)
            result["shrink"] = bench_shrink(tools, args.log_kb, folder)
            result["session"] = tools.sandbox.session_stats()
            tools.sandbox.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    emit(result, summary_line(result), args.out)


if __name__ == "__main__":
    main()
