"""Bytes kept out of the context window (issue 25): a 2 MB JSON file and a 500-file Markdown
folder indexed on the server (`POST /api/index`, what the `index` tool sends), then a question
per planted fact asked through snippet search (`POST /api/index/search`, what `index_search`
returns): bytes returned against the raw bytes, and whether the answer is in them. The 60 KB
log goes through local execution instead (`bench/execute.py`).

    python bench/context_savings.py [--url U --key K] [--json-mb 2] [--files 500] [--out F]

The text is generated here (seeded; ours, so free to use): records and prose of pseudo-words
around a few planted facts in plain English, so a question finds its fact by its words, not
by a lucky pseudo-word. Bytes returned = every snippet's text, title and source label of the
answer and the distinctive terms it suggests (what a tool result carries), UTF-8.

Prints the results JSON, then a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import emit, machine, server_from_args  # noqa: E402
from bench.index import Writer  # noqa: E402

# (planted text, question, answer that must be in the returned bytes)
JSON_FACTS = (
    (
        "refund blocked: the card issuer Northwind Bank flagged the transfer",
        "why was the refund blocked",
        "Northwind Bank",
    ),
    (
        "shipping address changed to 14 Harbour Lane, Leith",
        "which address was the shipping address changed to",
        "14 Harbour Lane",
    ),
    (
        "customer asked to cancel the espresso grinder subscription",
        "which subscription did the customer cancel",
        "espresso grinder",
    ),
)
MD_FACTS = (
    (
        "The staging database is restored every Sunday at 03:00 from the Friday snapshot.",
        "when is the staging database restored",
        "Sunday at 03:00",
    ),
    (
        "Deploy keys rotate every 90 days; the rotation script lives in ops/rotate_keys.sh.",
        "where does the deploy key rotation script live",
        "ops/rotate_keys.sh",
    ),
    (
        "The on-call escalation goes to Priya Raman after fifteen minutes without an answer.",
        "who gets the on-call escalation",
        "Priya Raman",
    ),
)


def json_document(writer: Writer, target: int, rng: random.Random) -> tuple[str, int]:
    """An array of order records of about `target` bytes; the facts in three notes."""
    records: list[dict[str, Any]] = []
    size = 0
    while size < target:
        n = len(records)
        record = {
            "id": f"ORD-{n:06d}",
            "customer": writer.sentence()[:40],
            "status": rng.choice(["open", "paid", "shipped", "returned"]),
            "items": [
                {"sku": f"SKU-{rng.randrange(10**5)}", "qty": rng.randint(1, 4)}
                for _ in range(rng.randint(1, 3))
            ],
            "note": writer.sentence(),
        }
        records.append(record)
        size += len(json.dumps(record)) + 2
    for i, (fact, _, _) in enumerate(JSON_FACTS):
        records[(i + 1) * len(records) // (len(JSON_FACTS) + 1)]["note"] = fact
    text = json.dumps(records, indent=1)
    return text, len(text.encode())


def markdown_files(writer: Writer, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """`count` small Markdown pages (1-4 KB); three of them hold a fact in a section."""
    files = []
    for n in range(count):
        page = writer.document(rng.randint(1000, 4000))
        files.append((f"handbook/page-{n:03d}.md", page))
    for i, (fact, _, _) in enumerate(MD_FACTS):
        n = (i + 1) * count // (len(MD_FACTS) + 1)
        name, page = files[n]
        files[n] = (name, f"{page}\n## Operations note\n\n{fact}\n")
    return files


def returned_bytes(answer: dict[str, Any]) -> tuple[int, str]:
    """The snippets with their titles and labels, and the distinctive terms suggested."""
    text = "\n".join(
        f"{h.get('source', '')} {h.get('title', '')}\n{h.get('snippet', '')}"
        for r in answer["results"]
        for h in r.get("hits", [])
    )
    terms = json.dumps(answer.get("terms") or {}, ensure_ascii=False)
    return len(text.encode()) + len(terms.encode()), text


def ask(
    http: httpx.Client, scope: str, facts: tuple[tuple[str, str, str], ...], limit: int, raw: int
) -> dict[str, Any]:
    rows = []
    for _, question, answer in facts:
        body = {"queries": [question], "limit": limit, "scope": scope}
        response = http.post("/api/index/search", json=body)
        assert response.status_code == 200, response.text[:300]
        size, text = returned_bytes(response.json())
        rows.append(
            {
                "question": question,
                "bytes": size,
                "share": round(size / raw, 5),
                "answer_present": answer in text.replace("«", "").replace("»", ""),
                "rung": response.json()["results"][0].get("rung"),
            }
        )
    return {
        "raw_bytes": raw,
        "questions": rows,
        "max_share": max(r["share"] for r in rows),
        "all_answers": all(r["answer_present"] for r in rows),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--key")
    parser.add_argument("--json-mb", type=float, default=2.0)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--limit", type=int, default=2, help="snippets per question")
    parser.add_argument("--out")
    args = parser.parse_args()
    rng = random.Random(11)
    writer = Writer(seed=11)
    result: dict[str, Any] = {"benchmark": "context_savings", "machine": machine()}
    with server_from_args(args.url, args.key) as server:
        http = httpx.Client(base_url=server.url, headers={"X-Context-Key": server.key}, timeout=600)
        scope = f"savings-{int(time.time())}"
        http.post("/api/admin/scopes", json={"name": scope})
        doc, raw = json_document(writer, int(args.json_mb * 1e6), rng)
        response = http.post(
            "/api/index",
            json={"content": doc, "source": "orders.json", "type": "json", "scope": scope},
        )
        assert response.status_code in (200, 201), response.text[:300]
        result["json"] = ask(http, scope, JSON_FACTS, args.limit, raw)
        files = markdown_files(writer, args.files, rng)
        for name, page in files:
            response = http.post(
                "/api/index",
                json={"content": page, "source": name, "type": "markdown", "scope": scope},
            )
            assert response.status_code in (200, 201), response.text[:300]
        folder = sum(len(p.encode()) for _, p in files)
        result["markdown_folder"] = {
            "files": len(files),
            **ask(http, scope, MD_FACTS, args.limit, folder),
        }
    j, m = result["json"], result["markdown_folder"]
    summary = (
        f"bytes returned / raw: {args.json_mb} MB JSON {j['max_share']:.2%} (answers "
        f"{j['all_answers']}), {m['files']}-file Markdown folder ({m['raw_bytes'] / 1e6:.2f} MB) "
        f"{m['max_share']:.2%} (answers {m['all_answers']}); target 2%"
    )
    emit(result, summary, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
