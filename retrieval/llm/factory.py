"""Building the configured LLM (with its optional fallback) from the CTX_LLM_* settings."""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from ctx import knobs
from ctx.sensitivity import INTERNAL
from retrieval.llm.base import LLMError, LLMProvider, LLMResult, Message
from retrieval.llm.providers import PROVIDERS

log = logging.getLogger("ctx.llm")


class FallbackLLM(LLMProvider):
    """Tries `primary`; when it cannot be reached (an OutboundError), asks `secondary`.
    An answer that arrived but is unusable is not retried elsewhere: the caller's
    deterministic mode is the fallback for that."""

    def __init__(self, primary: LLMProvider, secondary: LLMProvider) -> None:
        self.primary = primary
        self.secondary = secondary
        self.provider = primary.provider
        self.model = primary.model

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        pipeline: str,
        sensitivity: str = INTERNAL,
    ) -> LLMResult:
        kwargs: dict[str, Any] = {
            "schema": schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "pipeline": pipeline,
            "sensitivity": sensitivity,  # each endpoint's complete() enforces CTX_LLM_TRUST
        }
        try:
            return self.primary.complete(messages, **kwargs)
        except LLMError as err:
            if err.kind != "outbound":
                raise
            log.warning("LLM %s unreachable (%s); asking the fallback", self.provider, err)
        return self.secondary.complete(messages, **kwargs)


@dataclass(frozen=True)
class Endpoint:
    provider: str
    model: str
    base_url: str
    api_key: str = field(repr=False)
    timeout: float


def endpoints(ctx: Mapping[str, Any]) -> tuple[Endpoint | None, Endpoint | None]:
    """(primary, fallback) as configured; None where the provider is `none`."""

    def endpoint(prefix: str) -> Endpoint | None:
        provider = ctx.get(f"{prefix}PROVIDER") or "none"
        if provider == "none":
            return None
        return Endpoint(
            provider=provider,
            model=ctx.get(f"{prefix}MODEL") or "",
            base_url=ctx.get(f"{prefix}BASE_URL") or "",
            api_key=ctx.get(f"{prefix}API_KEY") or "",
            timeout=float(ctx.get("CTX_LLM_TIMEOUT") or 60.0),
        )

    return endpoint("CTX_LLM_"), endpoint("CTX_LLM_FALLBACK_")


def config_problems(ctx: Mapping[str, Any]) -> list[str]:
    """Cross-setting findings for the LLM knobs (for a system check and for get_llm)."""
    return endpoint_problems(*endpoints(ctx))


def endpoint_problems(primary: Endpoint | None, fallback: Endpoint | None) -> list[str]:
    problems: list[str] = []
    if fallback and not primary:
        problems.append("CTX_LLM_FALLBACK_PROVIDER is set but CTX_LLM_PROVIDER is none.")
    for prefix, ep in (("CTX_LLM_", primary), ("CTX_LLM_FALLBACK_", fallback)):
        if ep and not ep.model:
            problems.append(f"{prefix}MODEL is required with {prefix}PROVIDER={ep.provider}.")
        if ep and not ep.api_key and _needs_key(ep):
            problems.append(f"{prefix}API_KEY is required with {prefix}PROVIDER={ep.provider}.")
    return problems


def _needs_key(ep: Endpoint) -> bool:
    # Hosted APIs refuse anonymous calls; a self-hosted OpenAI-compatible server may not.
    return ep.provider == "anthropic" or (ep.provider == "openai" and not ep.base_url)


def get_llm() -> LLMProvider | None:
    """The configured LLM, or None when there is none (features then run deterministically).
    Built once per process and configuration; raises ImproperlyConfigured on bad settings."""
    return llm_from(knobs.values())  # live: timeout and keys (sealed secrets)


def llm_from(values: Mapping[str, Any]) -> LLMProvider | None:
    """The LLM the CTX_LLM_* entries of `values` describe (another feature's own settings
    mapped onto those names: dream.engines)."""
    return _build(*endpoints(values))


@functools.lru_cache(maxsize=8)
def _build(primary: Endpoint | None, fallback: Endpoint | None) -> LLMProvider | None:
    problems = endpoint_problems(primary, fallback)
    if problems:
        raise ImproperlyConfigured(" ".join(problems))
    if primary is None:
        return None
    first = _provider(primary)
    return FallbackLLM(first, _provider(fallback)) if fallback else first


def _provider(ep: Endpoint) -> LLMProvider:
    cls = PROVIDERS[ep.provider]
    return cls(model=ep.model, base_url=ep.base_url, api_key=ep.api_key, timeout=ep.timeout)
