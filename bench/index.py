"""Indexed documents: /api/index throughput on Markdown and snippet-search latency over N chunks.

    python bench/index.py [--chunks 15000] [--doc-mb 2] [--queries 200] [--out FILE]
    python bench/index.py --url URL --key KEY [--no-index]   # a server of your own (kept)

Starts a private server (embedded PostgreSQL and Redis, fresh data dir) with embedding,
fact extraction and dream off (CTX_EMBED_TRUST=public, CTX_EXTRACTION=off,
CTX_DREAM_INITIAL_MODE=off), so the throughput is parse + upload + chunking + block writes
(sensitivity detection, versions, anchors, GIN/trigram index maintenance) + vocabulary + commit,
without embedding. The Markdown is generated (seeded): pseudo-words from syllables with a Zipf
spread, H1-H4 sections of 2-5 paragraphs, fenced code blocks and lists; documents of
--doc-mb MB (under the 8 MiB body limit) are indexed one after another until the index holds
at least --chunks chunks.

Search latency is client wall time on loopback per call (the API sends no server timing), p50
and p95, sequential, for four kinds of single-query calls: two adjacent words of a chunk
(stemmed_and), a word with two letters swapped (typo), a word's first 5 letters (trigram or
stemmed, as the stemmer decides) and a word not in the corpus (every rung runs, nothing found),
plus calls of 5 queries at once. Every query searches all sources.

Prints JSON, then a one-line summary with the machine and the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ServerInfo, emit, machine, percentile, private_server

ENV = {"CTX_EMBED_TRUST": "public", "CTX_EXTRACTION": "off", "CTX_DREAM_INITIAL_MODE": "off"}
SYLLABLES = [a + b for a in "bcdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "or")]


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(words)


class Writer:
    """Seeded Markdown: Zipf-distributed words in sections, paragraphs, code and lists."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        self.weights = [1 / (rank + 1) for rank in range(len(self.words))]

    def sentence(self) -> str:
        n = self.rng.randint(6, 18)
        text = " ".join(self.rng.choices(self.words, self.weights, k=n))
        return text[0].upper() + text[1:] + "."

    def paragraph(self) -> str:
        kind = self.rng.random()
        if kind < 0.1:
            lines = [f"{w} = {self.rng.randint(0, 999)}" for w in self.rng.sample(self.words, 6)]
            return "```python\n" + "\n".join(lines) + "\n```"
        if kind < 0.2:
            return "\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(2, 5)))
        return " ".join(self.sentence() for _ in range(self.rng.randint(3, 7)))

    def document(self, target: int) -> str:
        parts = [f"# {self.sentence()[:-1]}"]
        size = 0
        while size < target:
            level = self.rng.choice((2, 2, 3, 3, 4))
            section = [f"{'#' * level} {' '.join(self.rng.sample(self.words, 3))}"]
            section += [self.paragraph() for _ in range(self.rng.randint(2, 5))]
            text = "\n\n".join(section)
            parts.append(text)
            size += len(text) + 2
        return "\n\n".join(parts) + "\n"


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def index_documents(
    http: httpx.Client, writer: Writer, chunks: int, doc_bytes: int
) -> dict[str, Any]:
    seconds, sent, docs, made = 0.0, 0, [], 0
    n = 0
    while made < chunks:
        doc = writer.document(doc_bytes)
        body = {"content": doc, "source": f"bench/doc-{n}.md", "type": "markdown"}
        started = time.perf_counter()
        response = http.post("/api/index", json=body)
        took = time.perf_counter() - started
        data = response.json()
        assert response.status_code == 201, data
        seconds += took
        sent += len(doc.encode())
        made += data["source"]["chunks"]
        docs.append({"bytes": len(doc.encode()), "chunks": data["source"]["chunks"], "s": took})
        n += 1
    return {
        "documents": len(docs),
        "bytes": sent,
        "chunks": made,
        "seconds": round(seconds, 2),
        "mb_per_s": round(sent / 1e6 / seconds, 3),
        "chunks_per_s": round(made / seconds, 1),
        "mean_chunk_bytes": round(sent / made),
        "per_document": docs,
    }


def queries(writer: Writer, texts: list[str], n: int, rng: random.Random) -> dict[str, list[str]]:
    common = Counter(w for t in texts for w in t.lower().split())
    known = [w for w in writer.words if common[w] >= 2 and len(w) >= 7]
    adjacent: list[str] = []
    while len(adjacent) < n:
        words = [w.strip(".,-`") for w in rng.choice(texts).split() if w.isalpha()]
        if len(words) > 3:
            i = rng.randrange(len(words) - 1)
            adjacent.append(f"{words[i]} {words[i + 1]}".lower())
    typos = []
    for w in rng.sample(known, n):
        i = rng.randrange(1, len(w) - 2)
        typos.append(w[:i] + w[i + 1] + w[i] + w[i + 2 :])
    partial = [w[:5] for w in rng.sample(known, n)]
    missing = [f"zqx{rng.randrange(10**6)}wy" for _ in range(n)]
    return {"stemmed": adjacent, "typo": typos, "partial": partial, "missing": missing}


def time_calls(http: httpx.Client, calls: list[list[str]]) -> dict[str, Any]:
    times: list[float] = []
    rungs: Counter[str] = Counter()
    for batch in calls:
        started = time.perf_counter()
        response = http.post("/api/index/search", json={"queries": batch, "limit": 5})
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
        for result in response.json()["results"]:
            rungs[result["rung"] or "none"] += 1
    return {
        "calls": len(calls),
        "queries_per_call": len(calls[0]),
        "p50_ms": round(percentile(times, 50), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "rungs": dict(rungs),
    }


@contextmanager
def _server(args: argparse.Namespace) -> Iterator[ServerInfo]:
    if args.url:
        yield ServerInfo(url=args.url, key=args.key)
        return
    with private_server(extra_env=ENV, prefix="ctx-bench-index-") as server:
        yield server


def _indexed(http: httpx.Client) -> dict[str, Any]:
    """What an earlier run indexed (for --no-index): no throughput, the sizes."""
    sources = http.get("/api/index/sources").json()["sources"]
    size = sum(s["bytes"] for s in sources)
    chunks = sum(s["chunks"] for s in sources)
    return {"documents": len(sources), "bytes": size, "chunks": chunks, "mb_per_s": None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=15000)
    parser.add_argument("--doc-mb", type=float, default=2.0)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out")
    parser.add_argument("--url", help="a running server (start it with the ENV above)")
    parser.add_argument("--key")
    parser.add_argument(
        "--no-index", action="store_true", help="only search (the server was indexed before)"
    )
    args = parser.parse_args()
    rng = random.Random(7)
    writer = Writer(seed=25)
    with _server(args) as server:
        http = httpx.Client(base_url=server.url, headers={"X-Context-Key": server.key}, timeout=600)
        load_before = _load()
        indexing = (
            _indexed(http)
            if args.no_index
            else index_documents(http, writer, args.chunks, int(args.doc_mb * 1e6))
        )
        sample = Writer(seed=25)  # the same text again, to draw queries from
        texts = [sample.document(int(args.doc_mb * 1e6)) for _ in range(2)]
        texts = [p for t in texts for p in t.split("\n\n") if not p.startswith(("#", "```"))]
        found = queries(writer, texts, args.queries, rng)
        http.post("/api/index/search", json={"queries": ["warm up"]})
        search = {kind: time_calls(http, [[q] for q in qs]) for kind, qs in found.items()}
        mixed = [found["stemmed"][i : i + 5] for i in range(0, args.queries, 5)]
        search["five_per_call"] = time_calls(http, mixed)
        load_after = _load()
    result = {
        "benchmark": "index",
        "indexing": indexing,
        "search": search,
        "load_before": load_before,
        "load_after": load_after,
        "excluded": "embedding, fact extraction, dream",
    }
    m = machine()
    summary = (
        f"index: {indexing['mb_per_s']} MB/s Markdown ({indexing['bytes'] / 1e6:.1f} MB, "
        f"{indexing['chunks']} chunks, embedding excluded); snippet search over N="
        f"{indexing['chunks']} chunks p50/p95 {search['stemmed']['p50_ms']}/"
        f"{search['stemmed']['p95_ms']} ms (typo {search['typo']['p50_ms']}/"
        f"{search['typo']['p95_ms']} ms); {m['cpus']} cores {m['cpu']}; load "
        f"{load_before} -> {load_after}"
    )
    emit(result, summary, args.out)


if __name__ == "__main__":
    main()
