"""LongMemEval retrieval benchmark: ctx over HTTP against BM25 on the same per-question corpora.

    python -m bench.longmemeval.run --dataset s --granularity both --out results.json
    python -m bench.longmemeval.run --no-server --markdown
    python -m bench.longmemeval.run --markdown-from results.json

Prints the results JSON, optionally Markdown tables, and a one-line summary as the last line.
Progress goes to stderr. See bench/longmemeval/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench.longmemeval.bm25 import BASELINES, Ranker, rank_bm25_words
from bench.longmemeval.client import (
    DEFAULT_URL,
    MAX_QUERY_LIMIT,
    BlockPlan,
    CtxClient,
    build_blocks,
    chunked,
    fact_blocks,
    ranked_ids,
    scope_name,
)
from bench.longmemeval.data import (
    GRANULARITIES,
    DatasetName,
    Granularity,
    Question,
    filter_types,
    load_questions,
    stratified_subset,
)
from bench.longmemeval.facts import expand, question_facts
from bench.longmemeval.metrics import (
    QuestionScore,
    Summary,
    aggregate,
    percentile,
    score_question,
)
from bench.longmemeval.split import load_split

CTX = "ctx"
FACTS = "+facts"
LEVEL_LABELS = {
    ("session", "session"): "session",
    ("turn", "turn"): "turn",
    ("turn", "session"): "turn→session",
}

RankFn = Callable[[Question], list[str]]
"""Returns a question's document ids (of the granularity being run), best first."""

LevelScores = dict[str, list[QuestionScore]]

STDERR = Console(stderr=True)


# --- evaluation: any ranking function, scored the same way -------------------------------------


def evaluate(
    questions: Sequence[Question],
    granularity: Granularity,
    rank: RankFn,
    ks: Sequence[int],
    on_question: Callable[[], None] | None = None,
) -> LevelScores:
    """Rank every question with ``rank`` and score it; per-question scores by level."""
    levels: LevelScores = {}
    for question in questions:
        scored = score_question(question, granularity, rank(question), ks)
        for level, metrics in scored.items():
            entry = QuestionScore(question.question_id, question.question_type, metrics)
            levels.setdefault(level, []).append(entry)
        if on_question:
            on_question()
    return levels


def baseline(ranker: Ranker, granularity: Granularity) -> RankFn:
    return lambda question: ranker(question.question, question.documents(granularity))


@dataclass
class CtxRanker:
    """Ranks by querying the question's scope at the question's date; records latencies."""

    client: CtxClient
    granularity: Granularity
    scope_prefix: str
    limit: int = MAX_QUERY_LIMIT
    client_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)

    def __call__(self, question: Question) -> list[str]:
        scope = scope_name(self.scope_prefix, question.question_id, self.granularity)
        result = self.client.query(scope, question.question, self.limit, question.question_date)
        self.client_ms.append(result.client_ms)
        if result.server_ms is not None:
            self.server_ms.append(result.server_ms)
        return ranked_ids(result.sources, self.granularity)


# --- ingestion into the server -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ingested:
    scope: str
    expected: int
    sent: int
    truncated: int
    skipped_empty: int
    actions: Counter[str]


def ingest_question(
    client: CtxClient, scope: str, plan: BlockPlan, advance: Callable[[int], None]
) -> Ingested:
    """Create the scope and store the plan's blocks, unless the scope already holds them all."""
    expected = len(plan.blocks)
    actions: Counter[str] = Counter()
    client.create_scope(scope)
    if client.scope_stats(scope).get("blocks") == expected:
        advance(expected)
        return Ingested(scope, expected, 0, plan.truncated, plan.skipped_empty, actions)
    for batch in chunked(plan.blocks):
        actions.update(result["action"] for result in client.store_batch(scope, batch))
        advance(len(batch))
    return Ingested(scope, expected, expected, plan.truncated, plan.skipped_empty, actions)


def _plan(question: Question, granularity: Granularity, options: Options, facts: bool) -> BlockPlan:
    plan = build_blocks(question, granularity, options.category)
    if not facts:
        return plan
    extra = fact_blocks(question, options.category, granularity)
    return BlockPlan(plan.blocks + extra, plan.truncated, plan.skipped_empty)


def ingest_all(
    client: CtxClient,
    questions: Sequence[Question],
    granularity: Granularity,
    options: Options,
    facts: bool = False,
) -> list[Ingested]:
    prefix = _prefix(options, facts)
    plans = [
        (scope_name(prefix, q.question_id, granularity), _plan(q, granularity, options, facts))
        for q in questions
    ]
    total = sum(len(plan.blocks) for _, plan in plans)
    with _progress() as progress, ThreadPoolExecutor(max(1, options.concurrency)) as pool:
        task = progress.add_task(f"ingest {granularity} blocks", total=total)

        def advance(n: int) -> None:
            progress.advance(task, n)

        futures = [
            pool.submit(ingest_question, client, scope, plan, advance) for scope, plan in plans
        ]
        return [future.result() for future in futures]


def wait_embedded(
    client: CtxClient, scopes: Sequence[str], *, timeout_s: float, poll_s: float
) -> dict[str, dict[str, Any]]:
    """Poll ``stats`` until no scope awaits embedding; returns each scope's last stats."""
    deadline = time.monotonic() + timeout_s
    last: dict[str, dict[str, Any]] = {}
    pending = list(scopes)
    peak = 0
    with _progress() as progress:
        task = progress.add_task("embedding (blocks waiting)", total=None)
        while pending:
            for scope in pending:
                last[scope] = client.scope_stats(scope)
            waiting = {scope: _awaiting(last[scope]) for scope in pending}
            pending = [scope for scope, count in waiting.items() if count > 0]
            remaining = sum(waiting.values())
            peak = max(peak, remaining)
            progress.update(task, total=peak, completed=peak - remaining)
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"{remaining} blocks in {len(pending)} scopes still unembedded")
            if pending:
                time.sleep(poll_s)
    return last


def _awaiting(stats: dict[str, Any]) -> int:
    if "awaiting_embedding" not in stats:
        raise KeyError(f"stats has no awaiting_embedding: {sorted(stats)}")
    return int(stats["awaiting_embedding"])


# --- one granularity against the server ---------------------------------------------------------


def _prefix(options: Options, facts: bool) -> str:
    """Scopes with facts are apart from the plain ones: both runs can share a server."""
    return f"{options.scope_prefix}-facts" if facts else options.scope_prefix


def run_ctx(
    client: CtxClient,
    questions: Sequence[Question],
    granularity: Granularity,
    args: Options,
    facts: bool = False,
) -> tuple[LevelScores, dict[str, Any]]:
    """Ingest, wait for embeddings, query; returns the scores and an operations report."""
    started = time.perf_counter()
    ingested = ingest_all(client, questions, granularity, args, facts)
    ingest_s = time.perf_counter() - started
    started = time.perf_counter()
    stats = wait_embedded(
        client, [i.scope for i in ingested], timeout_s=args.embed_timeout, poll_s=args.poll
    )
    embed_s = time.perf_counter() - started
    ranker = CtxRanker(client, granularity, _prefix(args, facts), args.query_limit)
    with _progress() as progress:
        task = progress.add_task(f"query {granularity}", total=len(questions))
        levels = evaluate(questions, granularity, ranker, args.ks, lambda: progress.advance(task))
    report = {
        "ingestion": _ingestion_report(ingested, stats, ingest_s),
        "embedding_wait_s": round(embed_s, 1),
        "latency_ms": {"client": _latency(ranker.client_ms), "server": _latency(ranker.server_ms)},
    }
    return levels, report


def query_variant(
    variant: Variant, questions: Sequence[Question], granularity: Granularity, args: Options
) -> tuple[LevelScores, dict[str, Any]]:
    """Query the already ingested and embedded scopes once more, with the variant's controls."""
    stages = None if variant.stages is None else list(variant.stages)
    client = CtxClient(args.url, args.key, args.timeout, stages=stages, fusion=variant.fusion)
    try:
        ranker = CtxRanker(client, granularity, args.scope_prefix, args.query_limit)
        with _progress() as progress:
            task = progress.add_task(f"query {granularity} {variant.name}", total=len(questions))
            tick = lambda: progress.advance(task)  # noqa: E731
            levels = evaluate(questions, granularity, ranker, args.ks, tick)
    finally:
        client.close()
    latency = {"client": _latency(ranker.client_ms), "server": _latency(ranker.server_ms)}
    return levels, {"variant": asdict(variant), "latency_ms": latency}


def _ingestion_report(
    ingested: Sequence[Ingested], stats: dict[str, dict[str, Any]], seconds: float
) -> dict[str, Any]:
    sent = sum(i.sent for i in ingested)
    mismatched = [
        {"scope": i.scope, "expected": i.expected, "blocks": stats[i.scope].get("blocks")}
        for i in ingested
        if stats[i.scope].get("blocks") != i.expected
    ]
    for row in mismatched:
        STDERR.print(
            f"[yellow]scope {row['scope']}: {row['blocks']} blocks, expected {row['expected']}[/]"
        )
    actions: Counter[str] = Counter()
    for item in ingested:
        actions.update(item.actions)
    return {
        "scopes": len(ingested),
        "scopes_skipped": sum(1 for i in ingested if i.sent == 0),
        "blocks_expected": sum(i.expected for i in ingested),
        "blocks_sent": sent,
        "actions": dict(actions),
        "truncated": sum(i.truncated for i in ingested),
        "skipped_empty": sum(i.skipped_empty for i in ingested),
        "seconds": round(seconds, 1),
        "blocks_per_s": round(sent / seconds, 1) if sent else None,
        "count_mismatches": mismatched,
    }


def _latency(values: Sequence[float]) -> dict[str, Any]:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    return {
        "n": len(values),
        "p50": None if p50 is None else round(p50, 1),
        "p95": None if p95 is None else round(p95, 1),
    }


# --- the whole run ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    dataset: DatasetName
    granularities: tuple[Granularity, ...]
    ks: tuple[int, ...]
    limit_questions: int | None
    types: tuple[str, ...]
    server: bool
    url: str
    key: str
    concurrency: int
    query_limit: int
    scope_prefix: str
    category: str
    embed_timeout: float
    poll: float
    timeout: float
    per_question: bool
    stages: str | None = None  # comma-separated; None: the server's configured stages
    variants: tuple[Variant, ...] = ()  # more ctx configurations queried in the same run
    facts: bool = False  # also rank with extracted facts added to the index
    split: str = "all"  # dev | heldout | all (bench/longmemeval/split.json)


@dataclass(frozen=True)
class Variant:
    """A ctx configuration queried on the same ingested corpus: system name `ctx:<name>`."""

    name: str
    stages: tuple[str, ...] | None = None
    fusion: str | None = None

    @classmethod
    def parse(cls, text: str) -> Variant:
        """`name=stages:a,b;fusion:rrf` (either key optional; `stages:` alone = fusion only)."""
        name, _, spec = text.partition("=")
        fields: dict[str, str] = {}
        for item in filter(None, spec.split(";")):
            key, sep, value = item.partition(":")
            if not sep or key not in ("stages", "fusion"):
                raise ValueError(f"--variant {text!r}: expected stages:… or fusion:…")
            fields[key] = value
        if not name.strip():
            raise ValueError(f"--variant {text!r}: a name is needed")
        stages = fields.get("stages")
        return cls(
            name=name.strip(),
            stages=None if stages is None else tuple(x for x in stages.split(",") if x),
            fusion=fields.get("fusion"),
        )


def run(options: Options, questions: Sequence[Question]) -> dict[str, Any]:
    started = time.perf_counter()
    result: dict[str, Any] = _header(options, questions)
    stages = None if options.stages is None else [x for x in options.stages.split(",") if x]
    client = (
        CtxClient(options.url, options.key, options.timeout, stages=stages)
        if options.server
        else None
    )
    try:
        for granularity in options.granularities:
            by_system = _baselines(questions, granularity, options.ks, options.facts)
            if client is not None:
                by_system[CTX], report = run_ctx(client, questions, granularity, options)
                result["ctx"]["runs"][granularity] = report
                if options.facts:
                    by_system[f"{CTX}{FACTS}"], report = run_ctx(
                        client, questions, granularity, options, facts=True
                    )
                    result["ctx"]["runs"][f"{granularity}{FACTS}"] = report
                for variant in options.variants:
                    name = f"{CTX}:{variant.name}"
                    by_system[name], latency = query_variant(
                        variant, questions, granularity, options
                    )
                    result["ctx"]["runs"][f"{granularity}:{variant.name}"] = latency
            _store(result, granularity, by_system, options.per_question)
    finally:
        if client is not None:
            client.close()
    result["duration_s"] = round(time.perf_counter() - started, 1)
    return result


def _baselines(
    questions: Sequence[Question], granularity: Granularity, ks: Sequence[int], facts: bool
) -> dict[str, LevelScores]:
    by_system: dict[str, LevelScores] = {}
    rankers = dict(BASELINES)
    with _progress() as progress:
        for name, ranker in rankers.items():
            task = progress.add_task(f"{name} {granularity}", total=len(questions))
            rank = baseline(ranker, granularity)
            tick = partial(progress.advance, task)
            by_system[name] = evaluate(questions, granularity, rank, ks, tick)
        if facts:
            task = progress.add_task(f"bm25{FACTS} {granularity}", total=len(questions))
            tick = partial(progress.advance, task)
            rank_facts = partial(bm25_facts, granularity=granularity)
            by_system[f"bm25{FACTS}"] = evaluate(questions, granularity, rank_facts, ks, tick)
    return by_system


def bm25_facts(question: Question, granularity: Granularity = "session") -> list[str]:
    """BM25 over the documents and the facts extracted from them; a fact hit is its sessions
    (turns)."""
    found = question_facts(question, granularity)
    documents = [*question.documents(granularity), *(f.document for f in found)]
    return expand(rank_bm25_words(question.question, documents), found)


def _header(options: Options, questions: Sequence[Question]) -> dict[str, Any]:
    return {
        "benchmark": "longmemeval",
        "dataset": options.dataset,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "n_questions": len(questions),
        "question_types": dict(Counter(q.question_type for q in questions)),
        "limit_questions": options.limit_questions,
        "types": list(options.types) or None,
        "ks": list(options.ks),
        "split": options.split,
        "facts": options.facts,
        "systems": ([CTX, *(f"{CTX}:{v.name}" for v in options.variants)] if options.server else [])
        + ([f"{CTX}{FACTS}"] if options.server and options.facts else [])
        + list(BASELINES)
        + ([f"bm25{FACTS}"] if options.facts else []),
        "ctx": {"url": options.url, "runs": {}} if options.server else None,
        "results": {},
    }


def _store(
    result: dict[str, Any], granularity: Granularity, by_system: dict[str, LevelScores], per_q: bool
) -> None:
    levels: dict[str, dict[str, Summary]] = {}
    for system, scores in by_system.items():
        for level, question_scores in scores.items():
            levels.setdefault(level, {})[system] = aggregate(question_scores)
    result["results"][granularity] = levels
    if per_q:
        # Every system of every level (a comprehension keyed by level kept only the last).
        per_level: dict[str, dict[str, dict[str, Any]]] = {}
        for system, scores in by_system.items():
            for level, rows in scores.items():
                per_level.setdefault(level, {})[system] = {
                    s.question_id: dict(s.metrics) for s in rows
                }
        result.setdefault("per_question", {})[granularity] = per_level


# --- rendering ------------------------------------------------------------------------------------


def headline(ks: Sequence[int]) -> list[str]:
    """recall_all@k for each k, recall_any@first k, ndcg_any@last k, MRR."""
    return [f"recall_all@{k}" for k in ks] + [f"recall_any@{ks[0]}", f"ndcg_any@{ks[-1]}", "mrr"]


def markdown(result: dict[str, Any]) -> str:
    ks = result["ks"]
    columns = headline(ks)
    lines = [
        f"LongMemEval {result['dataset']}, n = {result['n_questions']}",
        "",
        "| level | system | n | " + " | ".join(columns) + " |",
        "|---|---|---|" + "---|" * len(columns),
    ]
    for granularity, level, system, summary in _rows(result):
        label = LEVEL_LABELS.get((granularity, level), f"{granularity}/{level}")
        cells = [f"{summary['overall']['metrics'][c]:.3f}" for c in columns]
        lines.append(
            f"| {label} | {system} | {summary['overall']['n']} | " + " | ".join(cells) + " |"
        )
    lines += ["", *_markdown_by_type(result, f"recall_all@{ks[-1]}", f"ndcg_any@{ks[-1]}")]
    return "\n".join(lines)


def _markdown_by_type(result: dict[str, Any], recall: str, ndcg: str) -> list[str]:
    systems = result["systems"]
    lines = [
        f"Per question type, {recall} / {ndcg}:",
        "",
        "| level | question type | n | " + " | ".join(systems) + " |",
        "|---|---|---|" + "---|" * len(systems),
    ]
    for granularity, levels in result["results"].items():
        for level, by_system in levels.items():
            label = LEVEL_LABELS.get((granularity, level), f"{granularity}/{level}")
            for question_type, group in by_system[systems[-1]]["by_type"].items():
                cells = [
                    _pair(by_system[s]["by_type"][question_type]["metrics"], recall, ndcg)
                    for s in systems
                ]
                lines.append(
                    f"| {label} | {question_type} | {group['n']} | " + " | ".join(cells) + " |"
                )
    return lines


def _pair(metrics: dict[str, float], first: str, second: str) -> str:
    return f"{metrics[first]:.3f} / {metrics[second]:.3f}"


def _rows(result: dict[str, Any]) -> list[tuple[str, str, str, Summary]]:
    return [
        (granularity, level, system, by_system[system])
        for granularity, levels in result["results"].items()
        for level, by_system in levels.items()
        for system in result["systems"]
    ]


def summary_line(result: dict[str, Any]) -> str:
    ks = result["ks"]
    names = [f"recall_all@{ks[0]}", f"recall_all@{ks[-1]}", f"ndcg_any@{ks[-1]}", "mrr"]
    short = "/".join(n.replace("recall_all", "rall").replace("ndcg_any", "ndcg") for n in names)
    parts = [f"longmemeval-{result['dataset']} n={result['n_questions']} ({short})"]
    for granularity, levels in result["results"].items():
        by_system = levels["session"]
        scores = " ".join(
            f"{system} "
            + "/".join(f"{by_system[system]['overall']['metrics'][n]:.3f}" for n in names)
            for system in result["systems"]
        )
        parts.append(f"{LEVEL_LABELS[(granularity, 'session')]}: {scores}")
    for granularity, report in ((result.get("ctx") or {}).get("runs") or {}).items():
        server = report["latency_ms"]["server"]
        line = f"{granularity} server p50 {server['p50']} ms p95 {server['p95']} ms"
        if "ingestion" in report:
            rate = report["ingestion"]["blocks_per_s"]
            line += f", ingest {rate if rate is not None else '-'} blocks/s"
        parts.append(line)
    return " | ".join(parts)


# --- command line -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.longmemeval.run", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--dataset", choices=["s", "oracle"], default="s")
    parser.add_argument("--granularity", choices=["session", "turn", "both"], default="both")
    parser.add_argument(
        "--limit-questions", type=int, metavar="N", help="stratified subset of N questions"
    )
    parser.add_argument("--types", default="", help="comma-separated question types to keep")
    parser.add_argument(
        "--stages",
        help="query stages for this run, comma-separated ('' = fusion only); "
        "default: the server's CTX_QUERY_STAGES",
    )
    parser.add_argument(
        "--variant",
        action="append",
        metavar="NAME=SPEC",
        help="also query the same corpus as system ctx:NAME, SPEC = 'stages:a,b;fusion:rrf' "
        "(repeatable; either key optional)",
    )
    parser.add_argument(
        "--facts",
        action="store_true",
        help="also rank with the extracted facts added to the index (each citing its sessions, "
        "or turns at turn level): systems "
        "ctx+facts (scopes <prefix>-facts-…) and bm25+facts",
    )
    parser.add_argument(
        "--split", choices=["dev", "heldout", "all"], default="all", help="split.json half"
    )
    parser.add_argument("--k", default="5,10", help="cut-offs, comma-separated (default 5,10)")
    parser.add_argument("--no-server", action="store_true", help="only the BM25 baselines")
    parser.add_argument("--url", default=os.environ.get("CTX_BASE_URL", DEFAULT_URL))
    parser.add_argument(
        "--key", default=os.environ.get("CTX_KEY", ""), help="admin key (env CTX_KEY)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="parallel scopes during ingestion"
    )
    parser.add_argument(
        "--query-limit", type=int, default=MAX_QUERY_LIMIT, help="sources per query"
    )
    parser.add_argument("--scope-prefix", help="default: lme (s) or lme-oracle (oracle)")
    parser.add_argument("--category", default="conversation", help="category of stored blocks")
    parser.add_argument("--embed-timeout", type=float, default=3600.0, help="seconds")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between stats polls")
    parser.add_argument("--timeout", type=float, default=120.0, help="HTTP timeout, seconds")
    parser.add_argument("--per-question", action="store_true", help="include per-question metrics")
    parser.add_argument("--out", type=Path, help="write the results JSON here too")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--markdown-from", type=Path, metavar="JSON", help="render a results file")
    args = parser.parse_args(argv)
    if not args.markdown_from and not args.no_server and not args.key:
        parser.error("--key (or CTX_KEY) is required unless --no-server")
    if not 1 <= args.query_limit <= MAX_QUERY_LIMIT:
        parser.error(f"--query-limit must be between 1 and {MAX_QUERY_LIMIT}")
    return args


def parse_ks(text: str) -> tuple[int, ...]:
    ks = tuple(int(part) for part in text.split(",") if part.strip())
    if not ks or any(k < 1 for k in ks):
        raise ValueError(f"--k needs positive integers, got {text!r}")
    return ks


def options_from(args: argparse.Namespace) -> Options:
    granularities = GRANULARITIES if args.granularity == "both" else (args.granularity,)
    default_prefix = "lme" if args.dataset == "s" else "lme-oracle"
    return Options(
        dataset=args.dataset,
        granularities=granularities,
        ks=parse_ks(args.k),
        limit_questions=args.limit_questions,
        types=tuple(t.strip() for t in args.types.split(",") if t.strip()),
        server=not args.no_server,
        url=args.url,
        key=args.key,
        concurrency=args.concurrency,
        query_limit=args.query_limit,
        scope_prefix=args.scope_prefix or default_prefix,
        category=args.category,
        embed_timeout=args.embed_timeout,
        poll=args.poll,
        timeout=args.timeout,
        per_question=args.per_question,
        stages=args.stages,
        variants=tuple(Variant.parse(v) for v in args.variant or ()),
        facts=args.facts,
        split=args.split,
    )


def select_questions(options: Options) -> list[Question]:
    questions = filter_types(load_questions(options.dataset), options.types)
    if options.split != "all":
        chosen = load_split()[options.split]
        questions = [q for q in questions if q.question_id in chosen]
    if options.limit_questions:
        questions = stratified_subset(questions, options.limit_questions)
    return questions


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.markdown_from:
        print(markdown(json.loads(args.markdown_from.read_text(encoding="utf-8"))))
        return 0
    options = options_from(args)
    with STDERR.status("loading LongMemEval…"):
        questions = select_questions(options)
    result = run(options, questions)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.markdown:
        print(markdown(result))
    print(summary_line(result))
    return 0


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=STDERR,
    )


if __name__ == "__main__":
    sys.exit(main())
