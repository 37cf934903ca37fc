"""Choose the fusion weights on the development half of LongMemEval_S, and only there.

    python -m bench.longmemeval.tune --url URL --key KEY [--split dev] [--passes 2]
                                      [--limit-questions N] [--check heldout] [--out FILE]

Ingests the split's session-level haystacks into a server (the same scopes `run` uses, so an
earlier `run` on the same server is reused), then searches the five fusion weights
(`CTX_FUSION_W_*`, set for the key's tenant through `PUT /api/settings`, live within a second)
by coordinate descent: each weight in turn over its candidate values, the others held, the
best kept; `--passes` rounds. The objective is the mean of recall_all@5 and nDCG@10 at session
level; a change is kept only when it raises the objective (ties keep the current value, so the
shipped defaults win a tie). With `--check heldout` the other half is ingested afterwards and
ranked once with the defaults and once with the chosen weights: the figure to report. The
weights are left unset on the server at the end.

Prints JSON (every configuration tried, the choice, the check), then a one-line summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

import httpx

from bench.common import machine
from bench.longmemeval.client import CtxClient
from bench.longmemeval.data import Question
from bench.longmemeval.metrics import aggregate
from bench.longmemeval.run import (
    CtxRanker,
    evaluate,
    ingest_all,
    options_from,
    parse_args,
    select_questions,
    wait_embedded,
)
from ctx.config import KNOBS_BY_NAME

CANDIDATES = {
    "CTX_FUSION_W_SEMANTIC": (0.35, 0.45, 0.55, 0.65, 0.75),
    "CTX_FUSION_W_FTS_EN": (0.10, 0.18, 0.25, 0.35, 0.45),
    "CTX_FUSION_W_FTS_DE": (0.0, 0.08, 0.15, 0.25),
    "CTX_FUSION_W_FTS_SIMPLE": (0.0, 0.05, 0.10, 0.20),
    "CTX_FUSION_W_TITLE": (0.0, 0.05, 0.10),
}
# The shipped defaults, read from the knobs' own specifications (never a second copy).
DEFAULTS = {name: float(KNOBS_BY_NAME[name].default) for name in CANDIDATES}
LEVEL: Final = "session"


def _settings(url: str, key: str, values: dict[str, float] | None) -> None:
    """Set the weights for the key's tenant (None: unset them); every process sees them
    within a second (ctx/overrides/resolver.py)."""
    with httpx.Client(base_url=url, headers={"X-Context-Key": key}, timeout=60) as http:
        if values is None:
            for name in DEFAULTS:
                http.delete(f"/api/settings/{name}")
        else:
            response = http.put("/api/settings", json={"values": values})
            response.raise_for_status()
    time.sleep(1.2)


def score(client: CtxClient, questions: Sequence[Question], prefix: str) -> dict[str, Any]:
    ranker = CtxRanker(client, LEVEL, prefix)
    levels = evaluate(questions, LEVEL, ranker, (5, 10))
    summary = aggregate(levels[LEVEL])
    metrics = summary["overall"]["metrics"]
    multi = summary["by_type"].get("multi-session")
    return {
        "recall_all@5": round(metrics["recall_all@5"], 4),
        "recall_all@10": round(metrics["recall_all@10"], 4),
        "ndcg_any@10": round(metrics["ndcg_any@10"], 4),
        "mrr": round(metrics["mrr"], 4),
        "multi_session_recall_all@5": round(multi["metrics"]["recall_all@5"], 4) if multi else None,
        "objective": round((metrics["recall_all@5"] + metrics["ndcg_any@10"]) / 2, 5),
    }


def _ingest(client: CtxClient, questions: Sequence[Question], args: Any) -> None:
    ingested = ingest_all(client, questions, LEVEL, args)
    wait_embedded(client, [i.scope for i in ingested], timeout_s=args.embed_timeout, poll_s=2)


def descend(
    url: str, key: str, client: CtxClient, questions: Sequence[Question], prefix: str, passes: int
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    current = dict(DEFAULTS)
    _settings(url, key, current)
    best = score(client, questions, prefix)
    tried = [{"weights": dict(current), **best}]
    for _ in range(passes):
        moved = False
        for name, values in CANDIDATES.items():
            for value in values:
                if value == current[name]:
                    continue
                trial = {**current, name: value}
                _settings(url, key, trial)
                result = score(client, questions, prefix)
                tried.append({"weights": dict(trial), **result})
                print(json.dumps(tried[-1]), file=sys.stderr, flush=True)
                if result["objective"] > best["objective"]:
                    current, best, moved = trial, result, True
        if not moved:
            break
    return current, tried


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--check", choices=("heldout", "none"), default="none")
    own, rest = parser.parse_known_args(argv)
    args = parse_args(["--granularity", "session", "--split", "dev", *rest])
    options = options_from(args)
    if not options.url or not options.key:
        raise SystemExit("--url and --key are needed: the weights are set on that server")
    started = time.perf_counter()
    questions = select_questions(options)
    client = CtxClient(options.url, options.key, options.timeout)
    result: dict[str, Any] = {"benchmark": "longmemeval-tune", "split": options.split}
    try:
        _ingest(client, questions, options)
        chosen, tried = descend(
            options.url, options.key, client, questions, options.scope_prefix, own.passes
        )
        result.update(questions=len(questions), tried=tried, chosen=chosen)
        result["chosen_scores"] = max(tried, key=lambda t: t["objective"])
        if own.check == "heldout":
            other = select_questions(replace(options, split="heldout", limit_questions=None))
            _ingest(client, other, options)
            _settings(options.url, options.key, None)
            defaults = score(client, other, options.scope_prefix)
            _settings(options.url, options.key, chosen)
            tuned = score(client, other, options.scope_prefix)
            result["check"] = {"questions": len(other), "defaults": defaults, "chosen": tuned}
    finally:
        _settings(options.url, options.key, None)
        client.close()
    result["duration_s"] = round(time.perf_counter() - started, 1)
    result["machine"] = machine()
    result["load"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(_summary(result))
    return 0


def _summary(result: dict[str, Any]) -> str:
    best = result["chosen_scores"]
    line = (
        f"tuned on {result['split']} ({result['questions']} questions, {len(result['tried'])} "
        f"configurations): objective {best['objective']}, rall@5 {best['recall_all@5']}, "
        f"nDCG@10 {best['ndcg_any@10']}; weights {result['chosen']}"
    )
    if "check" in result:
        check = result["check"]
        line += (
            f" | held-out ({check['questions']}): defaults rall@5/nDCG@10 "
            f"{check['defaults']['recall_all@5']}/{check['defaults']['ndcg_any@10']}, chosen "
            f"{check['chosen']['recall_all@5']}/{check['chosen']['ndcg_any@10']}"
        )
    return line


if __name__ == "__main__":
    raise SystemExit(main())
