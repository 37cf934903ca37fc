"""The confidence verdict against what it should say: LongMemEval_S questions on their own
haystack (answerable), the same questions on another question's haystack (foreign: the answer
is not there), the abstention questions (`_abs`: the haystack lacks the answer) and gibberish
and off-topic queries written for this benchmark. Development half and held-out half apart
(bench/longmemeval/split.json); the verdict's thresholds are chosen on the development half
(`--fit`) and reported on the held-out half.

    python bench/confidence.py collect --url URL --key KEY --per-split 20 --out FEATURES.json
    python bench/confidence.py fit FEATURES.json [--out RESULT.json]

`collect` stores each chosen question's haystack at session level (scopes `lme-<id>-session`,
the names `bench.longmemeval.run` uses, so a server loaded by it is reused), waits for the
embeddings and asks every query once with `explain`, keeping the evidence the verdict is made
from (best cosine of the top three, term coverage of the top five, which arms found the top
hit) and the verdict the server gave. `fit` searches the verdict's thresholds on the
development half under the targets' constraints and prints confusion tables of both halves
for the server's verdict and the fitted one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import emit, machine  # noqa: E402
from bench.longmemeval.client import (  # noqa: E402
    CtxClient,
    build_blocks,
    iso_utc,
    ranked_ids,
    scope_name,
)
from bench.longmemeval.data import (  # noqa: E402
    Question,
    build_question,
    load_entries,
    stratified_subset,
)
from bench.longmemeval.run import ingest_question, wait_embedded  # noqa: E402
from bench.longmemeval.split import load_split  # noqa: E402

PREFIX = "lme"
KINDS = ("answerable", "foreign", "abstention", "gibberish", "off_topic")

# Questions no LongMemEval haystack is about (general knowledge, other people's affairs),
# written for this benchmark. Some may still meet a session on the same subject: that is what
# the off-topic row measures, and why the targets leave it out.
OFF_TOPIC = [
    "How tall is Mount Everest?",
    "What is the boiling point of mercury in kelvin?",
    "Who wrote the novel War and Peace?",
    "What is the capital city of Mongolia?",
    "How many moons does Neptune have?",
    "When did the Byzantine Empire fall?",
    "What is the atomic number of tungsten?",
    "Who painted the ceiling of the Sistine Chapel?",
    "What is the speed of sound in sea water?",
    "How long is the Great Wall of China?",
    "What language is spoken in Suriname?",
    "Who discovered penicillin?",
    "What is the derivative of the arctangent function?",
    "Which planet has the longest day?",
    "What is the population of Reykjavik?",
    "Wie hoch ist die Zugspitze?",
    "Wer hat die Relativitätstheorie entwickelt?",
    "What does the Linux kernel's OOM killer score depend on?",
    "How does a Bloom filter estimate false positives?",
    "What is the half-life of carbon-14?",
    "Who was the first emperor of Rome?",
    "What is the largest desert in Antarctica?",
    "How many bones are in the adult human body?",
    "What is the melting point of titanium?",
    "Which river flows through Baghdad?",
    "What year did the Hubble telescope launch?",
    "How is the Reynolds number defined?",
    "Who composed the Goldberg Variations?",
    "What is the chemical formula of sulfuric acid?",
    "What is the deepest lake in the world?",
]


def gibberish(rng: random.Random, n: int) -> list[str]:
    """Letter soup of 2-4 words, plus keyboard runs: no language, no topic."""
    out = ["asdkjh qwepoi zzxx", "qwerty uiop asdf", "zxcvbnm lkjhg", "xkcd qqq vvvv wwww"]
    letters = "bcdfghjklmnpqrstvwxz" + "aeiou"
    while len(out) < n:
        words = [
            "".join(rng.choice(letters) for _ in range(rng.randint(4, 9)))
            for _ in range(rng.randint(2, 4))
        ]
        out.append(" ".join(words))
    return out[:n]


# --- collect -----------------------------------------------------------------------------------


def _chosen(per_split: int) -> dict[str, dict[str, list[Question]]]:
    """For each half: `per_split` scorable questions (stratified by type) and every abstention
    question."""
    split = load_split()
    entries = load_entries("s")
    by_id = {e["question_id"]: e for e in entries}
    out: dict[str, dict[str, list[Question]]] = {}
    for half in ("dev", "heldout"):
        scorable = [build_question(by_id[q]) for q in sorted(split[half]) if q in by_id]
        out[half] = {
            "answerable": stratified_subset(scorable, per_split),
            "abstention": [build_question(by_id[q]) for q in sorted(split[f"abs_{half}"])],
        }
    return out


def _foreign(questions: list[Question]) -> list[tuple[Question, Question]]:
    """Each question paired with the next one whose haystack holds none of its evidence
    sessions (haystacks share sessions)."""
    pairs = []
    for i, q in enumerate(questions):
        for step in range(1, len(questions)):
            other = questions[(i + step) % len(questions)]
            if not q.gold_sessions & {d.id for d in other.sessions}:
                pairs.append((q, other))
                break
    return pairs


def _evidence(body: dict[str, Any]) -> dict[str, Any]:
    explain = body.get("explain") or {}
    sources = body.get("sources") or []
    hits = explain.get("hits") or {}
    top = hits.get(sources[0]["id"], {}) if sources else {}
    arms = sorted((top.get("arms") or {}).keys())
    semantic = [
        (h.get("arms") or {}).get("semantic", {}).get("score")
        for h in (hits.get(s["id"], {}) for s in sources[:3])
    ]
    ranked = ranked_ids(sources, "session")
    per_hit = [
        {
            "doc": doc,
            "arms": {
                a: v.get("score") for a, v in (hits.get(s["id"], {}).get("arms") or {}).items()
            },
        }
        for doc, s in zip(ranked, sources, strict=False)
    ]
    return {
        "per_hit": per_hit,
        "verdict": body.get("confidence"),
        "hits": len(sources),
        "best_cosine": explain.get("best_cosine"),
        "term_coverage": explain.get("term_coverage"),
        "semantic_gap": explain.get("semantic_gap"),
        "lexical_candidates": explain.get("lexical_candidates"),
        "top_arms": arms,
        "top_semantic": max((s for s in semantic if s is not None), default=None),
        "server_ms": (body.get("timing_ms") or {}).get("total"),
    }


def _ask(client: CtxClient, scope: str, query: str, when: str | None) -> dict[str, Any]:
    payload: dict[str, Any] = {"query": query, "scope": scope, "limit": 10, "explain": True}
    if when:
        payload["now"] = when
    return _evidence(client._post("/api/query", payload))


def collect(args: argparse.Namespace) -> int:
    rng = random.Random(7)
    chosen = _chosen(args.per_split)
    client = CtxClient(args.url, args.key, timeout=300)
    everyone = [q for half in chosen.values() for group in half.values() for q in group]
    scopes = []
    with ThreadPoolExecutor(2) as pool:
        for q in everyone:
            scope = scope_name(PREFIX, q.question_id, "session")
            plan = build_blocks(q, "session", "conversation")
            scopes.append(scope)
            pool.submit(ingest_question, client, scope, plan, lambda n: None)
    wait_embedded(client, scopes, timeout_s=args.embed_timeout, poll_s=5)
    rows: list[dict[str, Any]] = []
    junk = gibberish(rng, args.gibberish)
    for half, groups in chosen.items():
        answerable = groups["answerable"]
        own = [(q, q, "answerable") for q in answerable]
        own += [(q, q, "abstention") for q in groups["abstention"]]
        own += [(q, other, "foreign") for q, other in _foreign(answerable)]
        for q, haystack, kind in own:
            scope = scope_name(PREFIX, haystack.question_id, "session")
            row = _ask(client, scope, q.question, iso_utc(q.question_date))
            gold = sorted(q.gold_sessions) if kind == "answerable" else []
            rows.append(
                {"half": half, "kind": kind, "question_id": q.question_id, "gold": gold, **row}
            )
        # Gibberish and off-topic: alternate halves, each asked on one haystack of its half.
        pick = 0 if half == "dev" else 1
        for kind, queries in (("gibberish", junk), ("off_topic", OFF_TOPIC)):
            for n, text in enumerate(queries[pick::2]):
                haystack = answerable[n % len(answerable)]
                scope = scope_name(PREFIX, haystack.question_id, "session")
                rows.append(
                    {
                        "half": half,
                        "kind": kind,
                        "question_id": text,
                        **_ask(client, scope, text, None),
                    }
                )
    result = {"benchmark": "confidence_collect", "machine": machine(), "rows": rows}
    counts = Counter((r["half"], r["kind"]) for r in rows)
    emit(result, f"collected {len(rows)} queries: {dict(counts)}", args.out)
    return 0


# --- fit ---------------------------------------------------------------------------------------

Rule = tuple[float, float, float]  # confident gap, confident coverage, none gap


def verdict(row: dict[str, Any], rule: Rule) -> str:
    """The server's rule (retrieval/confidence.py, imported: not a copy) with other
    thresholds, on the evidence the server reported."""
    from retrieval import confidence  # the server tree, for the rule itself

    evidence = confidence.Evidence(
        hits=row["hits"],
        coverage=row["term_coverage"] or 0.0,
        gap=row["semantic_gap"],
        lexical=row["lexical_candidates"] or 0,
    )
    return confidence.judge(evidence, confidence.Thresholds(*rule))


def table(rows: list[dict[str, Any]], rule: Rule | None) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        said = Counter(
            (r["verdict"] if rule is None else verdict(r, rule)) for r in rows if r["kind"] == kind
        )
        out[kind] = {
            v: said.get(v, 0) for v in ("confident", "low_confidence", "no_relevant_blocks_found")
        }
    return out


def shares(t: dict[str, dict[str, int]]) -> dict[str, float]:
    def share(kind: str, pred: Any) -> float:
        row = t[kind]
        total = sum(row.values())
        return (
            round(sum(n for v, n in row.items() if pred(v)) / total, 3) if total else float("nan")
        )

    return {
        "answerable_not_none": share("answerable", lambda v: v != "no_relevant_blocks_found"),
        "answerable_confident": share("answerable", lambda v: v == "confident"),
        "foreign_not_confident": share("foreign", lambda v: v != "confident"),
        "abstention_not_confident": share("abstention", lambda v: v != "confident"),
        "gibberish_not_confident": share("gibberish", lambda v: v != "confident"),
        "gibberish_none": share("gibberish", lambda v: v == "no_relevant_blocks_found"),
        "off_topic_not_confident": share("off_topic", lambda v: v != "confident"),
    }


TARGETS = {
    "answerable_not_none": 0.90,
    "foreign_not_confident": 0.80,
    "gibberish_not_confident": 1.0,
    "abstention_not_confident": 0.70,
}


def _meets(s: dict[str, float]) -> bool:
    return all(s[k] >= v for k, v in TARGETS.items())


def fit(args: argparse.Namespace) -> int:
    rows = json.loads(Path(args.features).read_text())["rows"]
    dev = [r for r in rows if r["half"] == "dev"]
    held = [r for r in rows if r["half"] == "heldout"]
    grid = itertools.product(
        [x / 100 for x in range(20, 61)],  # confident: gap
        [x / 10 for x in range(11)],  # confident: coverage
        [x / 100 for x in range(15, 51)],  # nothing relevant: gap without a word matched
    )
    best: tuple[tuple[float, ...], Rule] | None = None
    for rule in grid:
        s = shares(table(dev, rule))
        # Every target met on dev, with a margin where possible (capped at 0.1, about one
        # question in fifteen more than needed: the abstention rows are 15 a half); then keep
        # answerable questions confident (a useful verdict, not a shrug), gibberish 'nothing
        # relevant'. The all-gibberish target (1.0) is met or not: it takes no margin.
        met = _meets(s)
        margin = min(s[k] - v for k, v in TARGETS.items() if v < 1)
        score = (met, min(margin, 0.1), s["answerable_confident"], s["gibberish_none"], margin)
        if best is None or score > best[0]:
            best = (score, rule)
    assert best is not None
    rule = best[1]
    result: dict[str, Any] = {
        "benchmark": "confidence_fit",
        "rule": dict(zip(("gap", "coverage", "none_gap"), rule, strict=True)),
        "server": {
            h: {"table": table(r, None), "shares": shares(table(r, None))}
            for h, r in (("dev", dev), ("heldout", held))
        },
        "fitted": {
            h: {"table": table(r, rule), "shares": shares(table(r, rule))}
            for h, r in (("dev", dev), ("heldout", held))
        },
        "targets": TARGETS,
    }
    h = result["fitted"]["heldout"]["shares"]
    summary = (
        f"fitted on dev {rule}; held-out: answerable not-none {h['answerable_not_none']}, "
        f"foreign not-confident {h['foreign_not_confident']}, abstention "
        f"{h['abstention_not_confident']}, gibberish {h['gibberish_not_confident']} "
        f"(targets met: {_meets(h)})"
    )
    emit(result, summary, args.out)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--url", required=True)
    c.add_argument("--key", required=True)
    c.add_argument("--per-split", type=int, default=20)
    c.add_argument("--gibberish", type=int, default=40)
    c.add_argument("--embed-timeout", type=float, default=7200)
    c.add_argument("--out")
    f = sub.add_parser("fit")
    f.add_argument("features")
    f.add_argument("--out")
    args = parser.parse_args()
    return collect(args) if args.command == "collect" else fit(args)


if __name__ == "__main__":
    sys.exit(main())
