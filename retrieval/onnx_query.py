"""Vectors through ONNX Runtime: the local sentence-transformers model, exported once.

Why: one question through sentence-transformers costs 12.9 ms p50 on one thread of this 2-core
machine, the same graph in ONNX Runtime 5.4 ms, with vectors equal to the torch ones (cosine
>= 0.9999998 on 50 LongMemEval questions). The web workers embed nothing but queries, so once
the export exists they never import torch (~4 s and ~600 MB per process). Stored texts take
the fp32 export too (CTX_EMBED_PASSAGE_RUNTIME=onnx, all cores): texts of equal token length
run together unpadded, 302 short windows/s here against 52/s for sentence-transformers' padded
batches, the same vectors. (torch with bf16 pays off only on CPUs with bfloat16 units:
docs/architecture.md, "Embeddings".)

Only models that are a BERT encoder, mean pooling and normalisation (the packaged MiniLM and
its kind) are exported; anything else keeps the torch path.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("ctx.embeddings")

_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]
_INPUTS = ["input_ids", "attention_mask", "token_type_ids"]
# Texts per run at most: 64 windows of 256 tokens hold ~200 MB of attention scores; a worker's
# batch of 192 in one run would hold three times that.
RUN = 64


def compatible(model_dir: str) -> bool:
    """True for a BERT encoder with mean pooling and normalisation, the graph this module
    rebuilds around the exported encoder."""
    root = Path(model_dir)
    try:
        modules = [m["type"] for m in json.loads((root / "modules.json").read_text())]
        pooling = json.loads((root / "1_Pooling" / "config.json").read_text())
        config = json.loads((root / "config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return False
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v is True}
    return (
        modules == _MODULES
        and modes == {"pooling_mode_mean_tokens"}
        and config.get("model_type") == "bert"
        and (root / "tokenizer.json").exists()
    )


def _export_path(model_dir: str, models_dir: Path, kind: str) -> Path:
    """Where the export of this model lives: named by the weights' path, size and time, so a
    changed model is exported again rather than served stale, and by its arithmetic."""
    weights = next(p for p in (Path(model_dir) / n for n in _WEIGHTS) if p.exists())
    stat = weights.stat()
    key = f"{weights.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return models_dir / f"query-encoder-{digest}-{kind}.onnx"


_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def ensure_export(model_dir: str, models_dir: Path, *, int8: bool = False) -> Path:
    """The model's ONNX file in `models_dir`, exported by whichever process asks first (a file
    lock keeps the others waiting, an atomic rename keeps them from reading half a file). With
    `int8` the matrix products' weights are quantized per output channel after the export."""
    kind = "int8" if int8 else "fp32"
    target = _export_path(model_dir, models_dir, kind)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            partial = target.with_suffix(f".{os.getpid()}.part")
            _export(model_dir, partial)
            if int8:
                _quantize(partial)
            os.replace(partial, target)
            log.info("exported the query encoder to %s", target)
            for stale in target.parent.glob(f"query-encoder-*-{kind}.onnx"):
                if stale != target:  # an older weights file's or another model's export
                    stale.unlink(missing_ok=True)
    return target


def _export(model_dir: str, path: Path) -> None:
    import warnings  # heavy: loaded on first use

    import torch  # heavy: loaded on first use
    from transformers import AutoModel  # heavy: loaded on first use

    model = AutoModel.from_pretrained(model_dir).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            return self.bert(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]

    sample = torch.ones((2, 8), dtype=torch.int64)
    with warnings.catch_warnings():  # the tracer's notes on shapes: expected, not actionable
        warnings.simplefilter("ignore")
        _trace(torch, Encoder(), sample, path)


def _trace(torch: Any, encoder: Any, sample: Any, path: Path) -> None:
    torch.onnx.export(
        encoder,
        (sample, sample, torch.zeros_like(sample)),
        str(path),
        input_names=_INPUTS,
        output_names=["last_hidden_state"],
        dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*_INPUTS, "last_hidden_state"]},
        opset_version=17,
        dynamo=False,  # the TorchScript exporter: needs `onnx`, not onnxscript
    )


def _quantize(path: Path) -> None:
    """int8 weights for the MatMuls, one scale per output channel, activations quantized on
    the fly: 3.0 instead of 5.8 ms per question on one thread; cosine to the fp32 vectors 0.995
    on average (min 0.991) over 100 LongMemEval questions, and the same LongMemEval_S figures
    within a question (docs/architecture.md)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # heavy: loaded on first use

    # heavy: loaded on first use
    from onnxruntime.quantization.shape_inference import quant_pre_process

    prepared = path.with_suffix(".pre")
    try:
        quant_pre_process(str(path), str(prepared), skip_symbolic_shape=True)
        quantize_dynamic(
            str(prepared),
            str(path),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )
    finally:
        prepared.unlink(missing_ok=True)


class OnnxQueryEncoder:
    """Tokenizer + exported encoder + mean pooling + normalisation, as sentence-transformers
    computes them."""

    def __init__(self, model_dir: str, onnx_file: Path, threads: int = 1) -> None:
        import onnxruntime as ort  # heavy: loaded on first use
        from tokenizers import Tokenizer  # heavy: loaded on first use

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Threads that spin while they wait for work took the core from the other busy
        # processes of a small machine: on two loaded cores two spinning threads embedded at
        # half the rate of one (83 vs 157 texts/s); sleeping, they lose nothing when quiet.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(onnx_file), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(_max_tokens(model_dir))

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one per text. Texts of equal token length share a run; others run
        apart, unpadded: a question and its two short compared parts cost 16 ms padded into
        one batch and about 10 ms apart (one thread; queries come a few at a time)."""
        encodings = self._tokenizer.encode_batch(texts)
        by_length: dict[int, list[int]] = {}
        for i, encoding in enumerate(encodings):
            by_length.setdefault(len(encoding.ids), []).append(i)
        vectors: dict[int, np.ndarray] = {}
        runs = [rows[i : i + RUN] for rows in by_length.values() for i in range(0, len(rows), RUN)]
        for rows in runs:
            ids = np.array([encodings[i].ids for i in rows], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            feeds["token_type_ids"] = np.zeros_like(ids)
            means = self._session.run(None, feeds)[0].mean(axis=1)  # no padding: a plain mean
            units = means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
            vectors.update(zip(rows, units, strict=True))
        return np.stack([vectors[i] for i in range(len(texts))])


def _max_tokens(model_dir: str) -> int:
    try:
        config = json.loads((Path(model_dir) / "sentence_bert_config.json").read_text())
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return 512
