"""Interpreter quality on the labelled preference signals, for the rules and the LLM path.

Data (bench/profiles/): `signals_labelled.jsonl` (171 signals, `split` dev / heldout: within
each expected dimension, ordered by the SHA-256 of the id, the first half rounded up is dev;
the rules were tuned on dev only) and `signals_fresh.jsonl` (66 signals written after the
rules were frozen, never tuned on). Each line: type, note, tags, context and the expected
dimension and direction of the primary interpretation; `none` means nothing should be read,
`fact:<key>` a user fact (scored apart).

Scores per split: dimension accuracy, direction accuracy and both (the primary, i.e. the
most confident, interpretation against the label; a `none` item is right when nothing was
read), user-fact accuracy, the confusions, and the rules' throughput. `--llm N` also runs the
LLM interpreter on N signals of each split (a fixed sample: SHA-256 order of the ids) through
the small real model the tests use (SmolLM2-135M via xllamacpp, structured output): it proves
the path end to end, its accuracy is not a quality reference.

    .venv/bin/python bench/profiles_interpret.py [--llm 40] [--per-item] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import emit
from profiles.core.interpret import Interpreter, LLMInterpreter, Message, Reading, RuleInterpreter
from profiles.core.signals import Signal

DATA = Path(__file__).with_name("profiles")
FILES = ("signals_labelled.jsonl", "signals_fresh.jsonl")
NOW = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)


def load() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for name in FILES:
        with (DATA / name).open(encoding="utf-8") as handle:
            items += [json.loads(line) for line in handle if line.strip()]
    return items


def check_split(items: list[dict[str, Any]]) -> None:
    """The committed dev / held-out split is the one its rule derives (module docstring)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        if item["split"] in ("dev", "heldout"):
            groups[item["expected"]["dimension"].split(":")[0]].append(item)
    for group in groups.values():
        ranked = sorted(group, key=lambda i: hashlib.sha256(i["id"].encode()).hexdigest())
        cut = (len(ranked) + 1) // 2
        for n, item in enumerate(ranked):
            if item["split"] != ("dev" if n < cut else "heldout"):
                raise SystemExit(f"{item['id']}: split differs from its derivation")


def signal_of(item: dict[str, Any]) -> Signal:
    return Signal(
        id=item["id"],
        type=item["type"],
        note=item["note"],
        tags=tuple(item["tags"]),
        context=item["context"],
        created_at=NOW,
    )


def judge(item: dict[str, Any], reading: Reading) -> dict[str, Any]:
    """The prediction and whether its dimension / direction / both match the label."""
    expected = item["expected"]
    dim = expected["dimension"]
    primary = reading.primary
    got = (primary.dimension, primary.direction) if primary else ("none", "none")
    row: dict[str, Any] = {"id": item["id"], "split": item["split"], "expected": dim}
    row.update(got=list(got), source=reading.source)
    if dim.startswith("fact:"):
        row["fact_ok"] = dim[5:] in {f.key for f in reading.facts}
        return row
    row["dimension_ok"] = got[0] == dim
    row["direction_ok"] = got[1] == expected["direction"]
    row["both_ok"] = row["dimension_ok"] and row["direction_ok"]
    return row


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    style = [r for r in rows if "both_ok" in r]
    facts = [r for r in rows if "fact_ok" in r]

    def share(key: str, of: list[dict[str, Any]]) -> float | None:
        return round(sum(r[key] for r in of) / len(of), 3) if of else None

    wrong = Counter(f"{r['expected']} -> {r['got'][0]}" for r in style if not r["dimension_ok"])
    return {
        "signals": len(style),
        "dimension": share("dimension_ok", style),
        "direction": share("direction_ok", style),
        "both": share("both_ok", style),
        "facts": {"signals": len(facts), "accuracy": share("fact_ok", facts)},
        "confusions": dict(wrong.most_common(12)),
        "llm_answer_used": share("llm", [{"llm": r["source"] == "llm"} for r in rows]),
        "both_when_llm_answered": share("both_ok", [r for r in style if r["source"] == "llm"]),
    }


def run(interpreter: Interpreter, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [judge(item, interpreter.interpret(signal_of(item))) for item in items]


def by_split(rows: list[dict[str, Any]]) -> dict[str, Any]:
    splits = {name: [r for r in rows if r["split"] == name] for name in ("dev", "heldout", "fresh")}
    return {name: score(part) for name, part in splits.items() if part} | {"all": score(rows)}


def per_dimension(rows: list[dict[str, Any]]) -> dict[str, float]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if "both_ok" in row:
            groups[row["expected"]].append(row["both_ok"])
    return {dim: round(sum(v) / len(v), 3) for dim, v in sorted(groups.items())}


def throughput(items: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    rules = RuleInterpreter()
    signals = [signal_of(item) for item in items]
    started = time.perf_counter()
    for _ in range(rounds):
        for signal in signals:
            rules.interpret(signal)
    elapsed = time.perf_counter() - started
    count = rounds * len(signals)
    return {
        "signals": count,
        "per_second": round(count / elapsed),
        "mean_us": round(elapsed / count * 1e6, 1),
        "note": "rules only, in process: interpretation and fact extraction, no I/O",
    }


# --- the LLM path --------------------------------------------------------------------------


def llm_complete(url: str, timings: list[float]) -> Any:
    """A `complete` callable speaking the OpenAI wire format to the local server."""
    import httpx

    client = httpx.Client(base_url=url, timeout=600)

    def complete(messages: list[Message], schema: dict[str, Any]) -> Any:
        body = {
            "model": "smollm2",
            "messages": messages,
            "max_tokens": 512,
            "temperature": 0.0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema["title"], "schema": schema, "strict": True},
            },
        }
        started = time.perf_counter()
        reply = client.post("/v1/chat/completions", json=body)
        timings.append(time.perf_counter() - started)
        print(f"llm call {len(timings)}: {timings[-1]:.1f} s", file=sys.stderr, flush=True)
        reply.raise_for_status()
        return reply.json()["choices"][0]["message"]["content"]

    return complete


def llm_run(items: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    from bench.xquad import start_llm

    chosen = [i for split in ("dev", "heldout", "fresh") for i in _first(items, split, limit)]
    server, url = start_llm()
    timings: list[float] = []
    try:
        rows = run(LLMInterpreter(llm_complete(url, timings)), chosen)
    finally:
        del server
    return {
        "model": "SmolLM2-135M-Instruct Q4_1 (xllamacpp, n_ctx 2048, 2 threads)",
        "per_split_limit": limit,
        "scores": by_split(rows),
        "seconds_per_signal": round(sum(timings) / max(1, len(timings)), 2),
        "rows": rows,
    }


def _first(items: list[dict[str, Any]], split: str, limit: int) -> list[dict[str, Any]]:
    """`limit` signals of the split in SHA-256 order of their ids: a fixed sample that spans
    the dimensions (the files are ordered by dimension)."""
    ranked = sorted(
        (i for i in items if i["split"] == split),
        key=lambda i: hashlib.sha256(i["id"].encode()).hexdigest(),
    )
    return ranked[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", type=int, default=0, help="signals per split for the LLM path")
    parser.add_argument("--rounds", type=int, default=20, help="throughput rounds")
    parser.add_argument("--per-item", action="store_true", help="every prediction in the JSON")
    parser.add_argument("--out")
    args = parser.parse_args()
    items = load()
    check_split(items)
    load_before = os.getloadavg()
    rows = run(RuleInterpreter(), items)
    result: dict[str, Any] = {
        "benchmark": "profiles-interpret",
        "rules": by_split(rows),
        "rules_per_dimension": per_dimension(rows),
        "throughput": throughput(items, args.rounds),
    }
    if args.per_item:
        result["rules_rows"] = rows
    summary_llm = ""
    if args.llm:
        llm = llm_run(items, args.llm)
        if not args.per_item:
            llm.pop("rows")
        result["llm"] = llm
        s = llm["scores"]["all"]
        summary_llm = f"; LLM (SmolLM2-135M, {s['signals']} signals) both {s['both']:.2f}"
    result["load_avg"] = {"before": load_before, "after": os.getloadavg()}
    r = result["rules"]
    cpu = _cpu()
    emit(
        result,
        f"profiles interpreter (rules): both dev {r['dev']['both']:.3f}, held-out "
        f"{r['heldout']['both']:.3f}, fresh {r['fresh']['both']:.3f}; "
        f"{result['throughput']['per_second']} signals/s{summary_llm} — {cpu}",
        args.out,
    )


def _cpu() -> str:
    from bench.common import machine

    info = machine()
    return f"{info['cpu']}, {info['cpus']} cores"


if __name__ == "__main__":
    main()
