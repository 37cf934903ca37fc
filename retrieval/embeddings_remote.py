"""Remote embedding providers: Ollama (`POST /api/embed`) and any OpenAI-compatible
`POST /v1/embeddings` (OpenAI, TEI, llama.cpp, vLLM, LiteLLM, …).

Both batch their input (bounded requests keep each call under provider limits and timeouts),
check every response's count and dimension, and return L2-normalised vectors, so scores are
comparable with the local provider's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from ctx import knobs, outbound
from retrieval.embedding_base import (
    EmbeddingError,
    EmbedKind,
    batched,
    check_vectors,
    l2_normalise,
)

DEFAULT_BATCH = 32
DEFAULT_BASE_URLS = {"ollama": "http://127.0.0.1:11434", "openai": "https://api.openai.com"}
# Models trained with task prefixes lose recall without them (their model cards say so).
_PREFIXES: tuple[tuple[str, str, str], ...] = (
    ("nomic-embed", "search_query: ", "search_document: "),
    ("e5", "query: ", "passage: "),
)


def default_prefixes(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) a model family expects; empty for all others."""
    lowered = model.lower()
    for marker, query, passage in _PREFIXES:
        if marker in lowered:
            return query, passage
    return "", ""


class RemoteEmbeddings:
    provider = ""

    def __init__(
        self,
        *,
        model: str,
        dim: int,
        base_url: str = "",
        api_key: str = "",
        timeout: float = 30.0,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self.model = model
        self.dim = dim
        self.name = f"{self.provider}:{model}"
        self.base_url = (base_url or DEFAULT_BASE_URLS[self.provider]).rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self.batch_size = max(1, batch_size)
        self.prefixes = default_prefixes(model)

    def __repr__(self) -> str:  # never shows the key
        return f"<{type(self).__name__} {self.name} dim={self.dim} {self.base_url}>"

    def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> list[list[float]]:
        prefix = self.prefixes[0] if kind == "query" else self.prefixes[1]
        vectors: list[list[float]] = []
        for batch in batched([prefix + t for t in texts], self.batch_size):
            raw = self._embed_batch(list(batch))
            checked = check_vectors(raw, count=len(batch), dim=self.dim, provider=self.name)
            vectors.extend(l2_normalise(v) for v in checked)
        return vectors

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _post(self, url: str, payload: dict[str, Any]) -> Any:
        try:
            return outbound.post_json(
                url, payload, headers=self._headers(), timeout=self.timeout
            ).json
        except outbound.OutboundError as exc:
            raise EmbeddingError(str(exc), provider=self.name) from exc

    def _embed_batch(self, texts: list[str]) -> object:
        raise NotImplementedError


class OllamaEmbeddings(RemoteEmbeddings):
    """`POST /api/embed {model, input: [...]}` → `{embeddings: [[...], ...]}`."""

    provider = "ollama"

    def _embed_batch(self, texts: list[str]) -> object:
        body = self._post(f"{self.base_url}/api/embed", {"model": self.model, "input": texts})
        if not isinstance(body, dict):
            raise EmbeddingError("answer is not a JSON object", provider=self.name)
        return body.get("embeddings")


class OpenAIEmbeddings(RemoteEmbeddings):
    """`POST /v1/embeddings {model, input}` → `{data: [{index, embedding}, ...]}`."""

    provider = "openai"

    def _embed_batch(self, texts: list[str]) -> object:
        url = outbound.v1_url(self.base_url, "embeddings")
        body = self._post(url, {"model": self.model, "input": texts})
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise EmbeddingError("answer has no `data` list", provider=self.name)
        # The spec gives each item its index; servers are not bound to keep the order.
        ordered = sorted(data, key=lambda d: d.get("index", 0))
        return [d.get("embedding") for d in ordered]


REMOTE_PROVIDERS: dict[str, type[RemoteEmbeddings]] = {
    "ollama": OllamaEmbeddings,
    "openai": OpenAIEmbeddings,
}


@functools.lru_cache(maxsize=4)
def remote_embedder(
    provider: str, model: str, dim: int, base_url: str, api_key: str, timeout: float
) -> RemoteEmbeddings:
    """A remote provider built from explicit values (one per configuration and process)."""
    if provider not in REMOTE_PROVIDERS:
        raise ImproperlyConfigured(f"{provider!r} is not a remote embedding provider")
    if not model:
        raise ImproperlyConfigured(f"an embedding model is required with provider {provider}")
    cls = REMOTE_PROVIDERS[provider]
    return cls(model=model, dim=dim, base_url=base_url, api_key=api_key, timeout=timeout)


def remote_embedder_from_settings() -> RemoteEmbeddings:
    """The remote provider CTX_EMBED_PROVIDER names (ollama | openai), built from settings."""
    provider = knobs.value("CTX_EMBED_PROVIDER")
    if provider not in REMOTE_PROVIDERS:
        raise ImproperlyConfigured(f"CTX_EMBED_PROVIDER={provider!r} is not a remote provider")
    if not knobs.value("CTX_EMBED_MODEL"):
        raise ImproperlyConfigured(
            f"CTX_EMBED_MODEL is required with CTX_EMBED_PROVIDER={provider}"
        )
    return REMOTE_PROVIDERS[provider](
        model=knobs.value("CTX_EMBED_MODEL"),
        dim=knobs.value("CTX_EMBED_DIM"),
        base_url=knobs.value("CTX_EMBED_BASE_URL"),
        api_key=knobs.value("CTX_EMBED_API_KEY"),
        timeout=knobs.value("CTX_EMBED_TIMEOUT"),
    )
