"""Provider trust levels: the documented defaults per provider, overrides, the one guard."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.errors import SensitivityBlocked
from ctx.trust import allowed_levels, ensure_trusted, trust_of


def _set(settings: Any, **values: Any) -> None:
    settings.CTX = {**settings.CTX, **values}


@pytest.mark.parametrize(
    ("provider", "trust"),
    [
        ("local", "credentials"),
        ("e5", "credentials"),
        ("ollama", "internal"),
        ("openai", "internal"),
    ],
)
def test_it_trusts_in_process_embedders_and_not_remote_ones(
    settings: Any, provider: str, trust: str
) -> None:
    _set(settings, CTX_EMBED_PROVIDER=provider, CTX_EMBED_TRUST="auto")
    assert trust_of("embed") == trust


@pytest.mark.parametrize(
    ("backend", "llm_trust", "trust"),
    [
        ("crossencoder", "internal", "credentials"),
        ("http", "credentials", "internal"),
        ("llm", "personal", "personal"),  # the judge is the LLM
    ],
)
def test_it_resolves_the_rerank_trust_by_backend(
    settings: Any, backend: str, llm_trust: str, trust: str
) -> None:
    _set(settings, CTX_RERANK_BACKEND=backend, CTX_RERANK_TRUST="auto", CTX_LLM_TRUST=llm_trust)
    assert trust_of("rerank") == trust


def test_it_resolves_by_the_backend_in_use_over_the_configured_one(settings: Any) -> None:
    _set(settings, CTX_RERANK_BACKEND="crossencoder", CTX_RERANK_TRUST="auto")
    assert trust_of("rerank", "http") == "internal"  # a live override to a sidecar


def test_it_defaults_the_llm_to_internal_and_obeys_an_explicit_level(settings: Any) -> None:
    assert trust_of("llm") == "internal"
    _set(settings, CTX_EMBED_PROVIDER="openai", CTX_EMBED_TRUST="personal")
    assert allowed_levels("embed") == ["public", "internal", "personal"]


def test_it_raises_a_typed_error_without_content(settings: Any) -> None:
    ensure_trusted("llm", "internal")  # at the trust: passes
    with pytest.raises(SensitivityBlocked) as err:
        ensure_trusted("llm", "credentials")
    assert err.value.status == 422 and str(err.value.code) == "sensitivity_blocked"
    assert err.value.details == {"provider": "llm", "level": "credentials", "trust": "internal"}
