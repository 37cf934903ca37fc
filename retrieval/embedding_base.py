"""The embedding provider interface every provider (local or remote) implements, and the
helpers they share: batching, L2 normalisation, the dimension check."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from ctx.errors import Unavailable

# "probe": a text embedded once inside a request to be compared with stored passages (a
# store's near-duplicate hint). A symmetric local model (MiniLM) runs it through the fast
# query encoder; every other provider treats it as a passage.
EmbedKind = Literal["query", "passage", "probe"]


@runtime_checkable
class EmbeddingProvider(Protocol):
    name: str  # e.g. "local:all-MiniLM-L6-v2", "ollama:nomic-embed-text"
    dim: int

    def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> list[list[float]]:
        """One L2-normalised vector of `dim` floats per text, in order."""
        ...


class EmbeddingError(Unavailable):
    """The provider failed or answered something unusable; callers fail open (design §4)."""

    def __init__(self, message: str, *, provider: str, kind: str = "provider") -> None:
        super().__init__(f"Embedding provider {provider}: {message}")
        self.provider = provider
        self.kind = kind  # "provider" | "bad_response" | "dimension"


class DimensionMismatch(EmbeddingError):
    """The vectors' size differs from the configured one: stored vectors would be unusable."""

    def __init__(self, *, provider: str, expected: int, got: int) -> None:
        super().__init__(
            f"returned {got}-d vectors, expected {expected} (CTX_EMBED_DIM)",
            provider=provider,
            kind="dimension",
        )
        self.expected = expected
        self.got = got


def batched(texts: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def l2_normalise(vector: Sequence[float]) -> list[float]:
    """The unit vector; a zero vector stays zero rather than dividing by zero."""
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:
        return [float(x) for x in vector]
    return [x / norm for x in vector]


def check_array(vectors: Any, *, count: int, dim: int, provider: str) -> list[list[float]]:
    """A local model's numpy output as lists of floats, after the same checks as
    `check_vectors` done on the array (per-number checks in Python cost ~0.15 ms a vector)."""
    shape = getattr(vectors, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != count:
        raise EmbeddingError(
            f"expected {count} vectors, got shape {shape}", provider=provider, kind="bad_response"
        )
    if shape[1] != dim:
        raise DimensionMismatch(provider=provider, expected=dim, got=int(shape[1]))
    out: list[list[float]] = vectors.astype("float64").tolist()
    return out


def check_vectors(vectors: object, *, count: int, dim: int, provider: str) -> list[list[float]]:
    """The vectors as floats, after checking their number, shape and size."""
    if not isinstance(vectors, list) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
        raise EmbeddingError(
            f"expected {count} vectors, got {got}", provider=provider, kind="bad_response"
        )
    out: list[list[float]] = []
    for vector in vectors:
        if not isinstance(vector, list) or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in vector
        ):
            raise EmbeddingError(
                "a vector is not a list of numbers", provider=provider, kind="bad_response"
            )
        if len(vector) != dim:
            raise DimensionMismatch(provider=provider, expected=dim, got=len(vector))
        out.append([float(x) for x in vector])
    return out
