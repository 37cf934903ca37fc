"""Provider trust: the highest sensitivity each provider kind may see, and the one guard.

`ensure_trusted(kind, level)` is called at the single point where each provider kind receives
content (embedding: retrieval.embeddings.embed_texts; LLM: retrieval.llm.base.HttpLLM.complete;
rerank: retrieval.rerank.Rerank.run). Above the trust it raises SensitivityBlocked before a
byte is sent (fail closed). Local in-process providers default to `credentials` (nothing
leaves the machine); anything reached over HTTP defaults to `internal` (docs/security.md).
"""

from __future__ import annotations

from typing import Literal

from ctx import knobs
from ctx.errors import SensitivityBlocked
from ctx.sensitivity import CREDENTIALS, INTERNAL, at_most, rank

ProviderKind = Literal["embed", "llm", "rerank"]

_IN_PROCESS = {
    "embed": {"local", "e5"},  # sentence-transformers / onnx models in this process
    "rerank": {"crossencoder", "none"},
    "llm": set(),  # every LLM is reached over HTTP
}
_SETTING = {"embed": "CTX_EMBED_TRUST", "llm": "CTX_LLM_TRUST", "rerank": "CTX_RERANK_TRUST"}
_PROVIDER_SETTING = {"embed": "CTX_EMBED_PROVIDER", "rerank": "CTX_RERANK_BACKEND"}
_NAMES = {"embed": "embedding provider", "llm": "LLM", "rerank": "rerank backend"}


def trust_of(kind: ProviderKind, provider: str | None = None) -> str:
    """The trust level of the provider kind; `auto` resolves by `provider` (the backend in
    use, e.g. `local`, `ollama`, `crossencoder`, `http`), else by the configured one."""
    value = str(knobs.configured(_SETTING[kind]))
    if value != "auto":
        return value
    if provider is None:
        setting = _PROVIDER_SETTING.get(kind)
        provider = str(knobs.configured(setting)) if setting else ""
    if kind == "rerank" and provider == "llm":  # the judge is the LLM: it sees what the LLM may
        return trust_of("llm")
    return CREDENTIALS if provider in _IN_PROCESS[kind] else INTERNAL


def allows(kind: ProviderKind, level: str, provider: str | None = None) -> bool:
    return rank(level) <= rank(trust_of(kind, provider))


def allowed_levels(kind: ProviderKind) -> list[str]:
    """The block levels the configured provider of this kind may see (a queryset filter)."""
    return at_most(trust_of(kind))


def ensure_trusted(kind: ProviderKind, level: str, provider: str | None = None) -> None:
    """Raise SensitivityBlocked when content at `level` must not go to this provider kind."""
    trust = trust_of(kind, provider)
    if rank(level) <= rank(trust):
        return
    raise SensitivityBlocked(
        f"Content at sensitivity '{level}' cannot be sent to the configured {_NAMES[kind]} "
        f"(trusted up to '{trust}', {_SETTING[kind]}); nothing was sent.",
        details={"provider": kind, "level": level, "trust": trust},
    )
