"""`ctx` CLI benchmark: command wall time including start-up, and `ctx ingest` notes/s.

    python bench/cli.py [--runs 30] [--notes 5000] [--commands version,search,query]
                        [--url U --key K] [--out results.json]

The server is --url/--key, else CTX_BASE_URL/CTX_KEY, else a private one started for the run.
Each command runs N times as a fresh process (like hyperfine, after two warm-ups); ingest runs
on a generated vault of --notes notes in a temp dir, then once more to time the incremental
no-op. Prints the results JSON, then a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile, server_from_args

WORDS = (
    "deploy",
    "server",
    "database",
    "index",
    "query",
    "cache",
    "queue",
    "worker",
    "token",
    "schema",
    "backup",
    "replica",
    "latency",
    "budget",
    "release",
    "review",
    "incident",
    "alert",
    "metric",
    "tenant",
    "scope",
    "vector",
    "embedding",
    "migration",
    "rollback",
    "cluster",
    "node",
    "shard",
    "config",
    "secret",
    "policy",
    "audit",
    "digest",
    "graph",
)
FOLDERS = ("Projects", "Areas", "Resources", "Archive", "Daily", "People", "Meetings", "Ideas")
SEED_BLOCKS = (
    ("infra", "Deploys", "We deploy the API servers every Friday after the review."),
    ("infra", "Backups", "Database backups run nightly; replicas are checked weekly."),
    ("decisions", "Queue", "We chose Redis streams for the worker queue."),
)


def ctx_command() -> list[str]:
    """The installed `ctx` script (what people run), else `python -m ctx_cli.main`."""
    script = Path(sys.executable).with_name("ctx")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ctx_cli.main"]


def run(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ctx_command(), *args], input=stdin, capture_output=True, text=True, env=env, check=False
    )


def time_command(env: dict[str, str], args: list[str], runs: int) -> dict[str, Any]:
    """Wall ms of `ctx *args` as a new process each time: p50, p95, mean, failures."""
    for _ in range(2):
        run(env, *args)
    times, failures, last_error = [], 0, ""
    for _ in range(runs):
        started = time.perf_counter()
        proc = run(env, *args)
        times.append((time.perf_counter() - started) * 1000)
        if proc.returncode != 0:
            failures, last_error = failures + 1, proc.stderr.strip()[-200:]
    result = {
        "args": args,
        "runs": runs,
        "p50_ms": round(percentile(times, 50), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "mean_ms": round(statistics.fmean(times), 1),
        "failures": failures,
    }
    return {**result, "last_error": last_error} if failures else result


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _note(rng: random.Random, i: int, total: int) -> str:
    links = " ".join(f"[[note {rng.randrange(total)}]]" for _ in range(2))
    sections = [
        f"## {rng.choice(WORDS).title()} {j}\n{_sentence(rng, 60)} #{rng.choice(WORDS)}\n"
        f"{_sentence(rng, 40)} {links}\n"
        for j in range(3)
    ]
    front = f"---\ntags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]\nstatus: draft\n---\n"
    return f"{front}# note {i}\n{_sentence(rng, 30)}\n\n" + "\n".join(sections)


def generate_vault(root: Path, notes: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for i in range(notes):
        folder = root / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note {i}.md").write_text(_note(rng, i, notes), encoding="utf-8")


def _timed_ingest(env: dict[str, str], vault: Path, category: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    proc = run(env, "--json", "ingest", str(vault), "--category", category)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"ctx ingest failed after {elapsed:.1f} s: {proc.stderr.strip()}")
    return elapsed, json.loads(proc.stdout)


def bench_ingest(env: dict[str, str], notes: int) -> dict[str, Any]:
    """notes/s of a first ingest and of the incremental re-run (nothing changed)."""
    vault = Path(tempfile.mkdtemp(prefix="ctx-bench-vault-"))
    try:
        generate_vault(vault, notes)
        category = f"bench-cli-{int(time.time())}"  # a fresh key space: no server-side noops
        first, summary = _timed_ingest(env, vault, category)
        again, resummary = _timed_ingest(env, vault, category)
    except RuntimeError as exc:  # keep the command timings; say what broke
        return {"notes": notes, "error": str(exc)[-500:]}
    finally:
        shutil.rmtree(vault, ignore_errors=True)
    return {
        "notes": notes,
        "blocks": summary["blocks"],
        "first_run_s": round(first, 2),
        "notes_per_s": round(notes / first, 1),
        "blocks_per_s": round(summary["blocks"] / first, 1),
        "rerun_s": round(again, 2),
        "rerun_notes_per_s": round(notes / again, 1),
        "summary": summary,
        "rerun_summary": resummary,
    }


def seed(env: dict[str, str]) -> None:
    """Store the seed blocks; the first write of a fresh server loads the embedding model on
    the request path (near-duplicate hints), which can outlast the client's 30 s on a loaded
    machine, so a timed-out save is tried again (saves are upserts)."""
    for category, title, content in SEED_BLOCKS:
        for _attempt in range(3):
            proc = run(env, "save", category, title, content)
            if proc.returncode == 0 or "timed out" not in proc.stderr:
                break
        if proc.returncode != 0:
            raise SystemExit(f"ctx save failed: {proc.stderr.strip()}")


def command_args(name: str, query: str) -> list[str]:
    return {
        "version": ["version", "--client"],
        "health": ["health"],
        "search": ["search", query],
        "query": ["query", query],
    }[name]


def summary_line(result: dict[str, Any]) -> str:
    parts = [
        f"{name} p50 {r['p50_ms']:.0f} ms p95 {r['p95_ms']:.0f} ms"
        + (f" ({r['failures']} failed)" if r["failures"] else "")
        for name, r in result["commands"].items()
    ]
    ingest = result.get("ingest")
    if ingest and "error" in ingest:
        parts.append(f"ingest failed: {ingest['error'][-120:]}")
    elif ingest:
        parts.append(
            f"ingest {ingest['notes']:,} notes in {ingest['first_run_s']} s = "
            f"{ingest['notes_per_s']:,.0f} notes/s (re-run {ingest['rerun_s']} s)"
        )
    load = result.get("load_avg_after_ingest") or result.get("load_avg_after_commands")
    if load:
        parts.append(f"load {load[0]:.1f}")
    return "cli: " + " · ".join(parts)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("CTX_BASE_URL"))
    parser.add_argument("--key", default=os.environ.get("CTX_KEY"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--notes", type=int, default=5000, help="0 skips the ingest benchmark")
    parser.add_argument("--commands", default="version,search,query")
    parser.add_argument("--query", default="when do we deploy the servers?")
    parser.add_argument("--out", help="also write the JSON here")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    names = [n.strip() for n in args.commands.split(",") if n.strip()]
    config_home = tempfile.mkdtemp(prefix="ctx-bench-home-")  # no user config file interferes
    with server_from_args(args.url, args.key) as server:
        env = {**os.environ, "CTX_BASE_URL": server.url, "CTX_KEY": server.key}
        env["XDG_CONFIG_HOME"] = config_home
        seed(env)
        result: dict[str, Any] = {"server": server.url, "load_avg_start": os.getloadavg()}
        result["commands"] = {
            n: time_command(env, command_args(n, args.query), args.runs) for n in names
        }
        result["load_avg_after_commands"] = os.getloadavg()
        if args.notes > 0:
            result["ingest"] = bench_ingest(env, args.notes)
            result["load_avg_after_ingest"] = os.getloadavg()
    shutil.rmtree(config_home, ignore_errors=True)
    emit(result, summary_line(result), args.out)


if __name__ == "__main__":
    main()
