"""LongMemEval_S, turn level, through conversation import: every haystack uploaded as sessions
(`POST /api/sessions/import`), windowed and embedded by the server, queried with
`POST /api/query`; ranked windows expand into the user turns they contain (sessions.py).
BM25 over user turns and BM25 over the same windows run in the same process.

    python -m bench.longmemeval.sessions_run --split dev --limit-questions 60 \
        --window-size 2 --window-stride 2 --assistant-chars 300 --out /tmp/lme-dev.json
    python -m bench.longmemeval.sessions_run --split all --per-question --out results.json

Without --url a private server is started with the window settings given (CTX_SESSION_*);
with --url the server's own settings must match the ones given (they shape BM25's windows).
Prints the JSON, then a one-line summary with the machine and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench.common import emit, private_server
from bench.longmemeval.bm25 import rank_bm25_words
from bench.longmemeval.client import iso_utc
from bench.longmemeval.data import Question, RawEntry, build_question, is_scorable, load_entries
from bench.longmemeval.data import stratified_subset as subset
from bench.longmemeval.metrics import QuestionScore, aggregate, percentile, score_question
from bench.longmemeval.sessions import (
    bm25_windows,
    expand,
    import_body,
    local_windows,
    user_turns,
    windows_of,
)
from ingest import windows as w

SPLIT = Path(__file__).with_name("split.json")
KS = (5, 10)


class Api:
    def __init__(self, url: str, key: str, timeout: float = 600.0) -> None:
        self.http = httpx.Client(base_url=url, headers={"X-Context-Key": key}, timeout=timeout)

    def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        response = self.http.request(method, path, json=body)
        data = response.json()
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: HTTP {response.status_code} {data}")
        return dict(data)


# --- the server side ----------------------------------------------------------------------------


def scope_of(prefix: str, qid: str) -> str:
    return f"{prefix}-{qid}".lower()


def upload(api: Api, entry: RawEntry, prefix: str) -> str | None:
    """Create the question's scope and post its haystack; the job id, None when present."""
    scope = scope_of(prefix, entry["question_id"])
    try:
        api.call("POST", "/api/admin/scopes", {"name": scope})
    except RuntimeError as exc:
        if "409" not in str(exc):
            raise
        stats = api.call("POST", "/api/manage", {"action": "stats", "scope": scope})["stats"]
        if stats["blocks"] > 0:
            return None  # imported by an earlier run
    job = api.call("POST", "/api/sessions/import", import_body(entry, scope))["job"]
    return str(job["id"])


def wait_jobs(api: Api, jobs: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for job_id in jobs:
        while True:
            job = api.call("GET", f"/api/jobs/{job_id}")["job"]
            if job["status"] in ("done", "failed"):
                break
            time.sleep(0.5)
        if job["status"] == "failed":
            raise RuntimeError(f"import job {job_id} failed: {job['error']}")
        for name, n in job["result"]["totals"].items():
            counts[name] = counts.get(name, 0) + n
    return counts


def wait_embedded(api: Api, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        stats = api.call("POST", "/api/manage", {"action": "stats"})["stats"]
        waiting = int(stats["awaiting_embedding"])
        sys.stderr.write(f"\rembedding: {waiting} windows waiting   ")
        if waiting == 0 or time.monotonic() > deadline:
            sys.stderr.write("\n")
            return dict(stats)
        time.sleep(10)


def ctx_ranker(api: Api, prefix: str, turns: dict[str, Any], latency: list[float]) -> Callable:
    def rank(question: Question) -> list[str]:
        body = {
            "query": question.question,
            "scope": scope_of(prefix, question.question_id),
            "limit": 50,
            "now": iso_utc(question.question_date),
        }
        data = api.call("POST", "/api/query", body)
        latency.append(float(data["timing_ms"].get("total", 0.0)))
        found = [x for x in (windows_of(s) for s in data["sources"]) if x is not None]
        return expand(found, turns[question.question_id])

    return rank


# --- scoring --------------------------------------------------------------------------------------


def score_all(
    questions: Sequence[Question], rank: Callable[[Question], list[str]]
) -> dict[str, list[QuestionScore]]:
    levels: dict[str, list[QuestionScore]] = {}
    for n, question in enumerate(questions, 1):
        for level, metrics in score_question(question, "turn", rank(question), KS).items():
            levels.setdefault(level, []).append(
                QuestionScore(question.question_id, question.question_type, metrics)
            )
        if n % 25 == 0:
            sys.stderr.write(f"\rscored {n}/{len(questions)}   ")
    sys.stderr.write("\n")
    return levels


def by_split(scores: list[QuestionScore], split: dict[str, list[str]]) -> dict[str, Any]:
    parts = {
        "dev": [s for s in scores if s.question_id in set(split["dev"])],
        "heldout": [s for s in scores if s.question_id in set(split["heldout"])],
        "all": scores,
    }
    return {name: aggregate(rows) for name, rows in parts.items() if rows}


# --- the run --------------------------------------------------------------------------------------


def limits_of(args: argparse.Namespace) -> w.Limits:
    return w.Limits(
        size=args.window_size,
        stride=args.window_stride,
        message_chars=args.message_chars,
        assistant_chars=args.assistant_chars,
        tool_chars=300,
    )


def server_env(args: argparse.Namespace) -> dict[str, str]:
    return {
        "CTX_SESSION_WINDOW_SIZE": str(args.window_size),
        "CTX_SESSION_WINDOW_STRIDE": str(args.window_stride),
        "CTX_SESSION_WINDOW_MESSAGE_CHARS": str(args.message_chars),
        "CTX_SESSION_WINDOW_ASSISTANT_CHARS": str(args.assistant_chars),
        "CTX_SESSION_IMPORT_MAX_MESSAGES": "5000",
    }


def run(args: argparse.Namespace, entries: list[RawEntry], url: str, key: str) -> dict[str, Any]:
    api = Api(url, key)
    started = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        jobs = [j for j in pool.map(lambda e: upload(api, e, args.prefix), entries) if j]
    totals = wait_jobs(api, jobs)
    import_s = time.perf_counter() - started
    started = time.perf_counter()
    stats = wait_embedded(api, args.embed_timeout)
    embed_s = time.perf_counter() - started
    questions = [build_question(e) for e in entries]
    turns = {e["question_id"]: user_turns(e) for e in entries}
    latency: list[float] = []
    systems = {"ctx": ctx_ranker(api, args.prefix, turns, latency)}
    limits = limits_of(args)
    by_id = {e["question_id"]: e for e in entries}
    systems["bm25-windows"] = lambda q: expand(
        bm25_windows(q.question, local_windows(by_id[q.question_id], limits)), turns[q.question_id]
    )
    systems["bm25-turns"] = lambda q: rank_bm25_words(q.question, q.turns)
    split = json.loads(SPLIT.read_text())
    results: dict[str, Any] = {}
    per_question: dict[str, Any] = {}
    for name, rank in systems.items():
        levels = score_all(questions, rank)
        results[name] = {level: by_split(rows, split) for level, rows in levels.items()}
        per_question[name] = {s.question_id: dict(s.metrics) for s in levels["turn"]}
    report: dict[str, Any] = {
        "benchmark": "longmemeval_s turn level through conversation import",
        "questions": len(questions),
        "windows": limits.__dict__,
        "import": {
            "messages": sum(totals.values()),
            "totals": totals,
            "seconds": round(import_s, 1),
            "messages_per_s": round(sum(totals.values()) / max(import_s, 1e-9)),
        },
        "embedding": {"wait_s": round(embed_s, 1), "blocks": stats.get("blocks")},
        "query_ms": {"p50": percentile(latency, 50), "p95": percentile(latency, 95)},
        "results": results,
    }
    if args.per_question:
        report["per_question"] = per_question
    return report


def summary(report: dict[str, Any], load: tuple[float, ...]) -> str:
    parts = []
    for system in ("ctx", "bm25-windows", "bm25-turns"):
        cells = []
        for split, agg in report["results"][system]["turn"].items():
            m = agg["overall"]["metrics"]
            cells.append(f"{split} {m['recall_all@5']:.3f}/{m['recall_all@10']:.3f}")
        parts.append(f"{system} " + ", ".join(cells))
    lim = report["windows"]
    head = (
        f"longmemeval-s turn level via sessions (rall@5/rall@10), n={report['questions']}, "
        f"windows {lim['size']}/{lim['stride']} assistant {lim['assistant_chars']} chars"
    )
    return f"{head} | " + " | ".join(parts) + f" | load {load[0]:.1f}"


def select(args: argparse.Namespace) -> list[RawEntry]:
    entries = [e for e in load_entries("s") if is_scorable(e)]
    if args.split != "all":
        chosen = set(json.loads(SPLIT.read_text())[args.split])
        entries = [e for e in entries if e["question_id"] in chosen]
    if args.limit_questions:
        keep = {
            q.question_id
            for q in subset([build_question(e) for e in entries], args.limit_questions)
        }
        entries = [e for e in entries if e["question_id"] in keep]
    return entries


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url"), p.add_argument("--key", default=os.environ.get("CTX_KEY"))
    p.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    p.add_argument("--limit-questions", type=int)
    p.add_argument("--window-size", type=int, default=8)
    p.add_argument("--window-stride", type=int, default=4)
    p.add_argument("--message-chars", type=int, default=2000)
    p.add_argument("--assistant-chars", type=int, default=2000)
    p.add_argument("--prefix", default="lmes")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--embed-timeout", type=float, default=6 * 3600)
    p.add_argument("--per-question", action="store_true")
    p.add_argument("--out")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    entries = select(args)
    load_before = os.getloadavg()
    if args.url:
        report = run(args, entries, args.url, args.key or "")
    else:
        with private_server(extra_env=server_env(args), prefix="ctx-bench-lmes-") as server:
            report = run(args, entries, server.url, server.key)
    report["load_average"] = {"before": load_before, "after": os.getloadavg()}
    emit(report, summary(report, os.getloadavg()), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
