"""Dream Mode's own models: `CTX_DREAM_LLM_*` and `CTX_DREAM_EMBED_*`.

Dream's work is background work, so it may use a larger, slower LLM for link typing than the
one that answers questions, and a CPU sidecar for the embeddings it asks for (the guard's
probes) so that they do not queue behind the web server's. Each of its settings, left unset,
inherits the main one (`CTX_DREAM_LLM_MODEL` unset = `CTX_LLM_MODEL`). The sidecar must serve
the same embedding model as the main embedder: its vectors are compared with the stored ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctx import knobs, outbound
from retrieval.embedding_base import EmbedKind
from retrieval.embeddings import embed_texts as main_embed_texts
from retrieval.embeddings_remote import remote_embedder
from retrieval.llm import LLMProvider
from retrieval.llm.factory import llm_from

PARTS = ("PROVIDER", "MODEL", "BASE_URL", "API_KEY", "TIMEOUT")
LLM = ("CTX_DREAM_LLM_", "CTX_LLM_")
EMBED = ("CTX_DREAM_EMBED_", "CTX_EMBED_")


def inherit(values: Mapping[str, Any], own: str, main: str) -> tuple[dict[str, Any], list[str]]:
    """`values` with each of Dream's settings that is set written over the main one it
    shadows, and which parts Dream set itself (pure)."""
    out = dict(values)
    set_here = []
    for part in PARTS:
        value = values.get(own + part)
        if value not in (None, "", 0, 0.0):
            out[main + part] = value
            set_here.append(part)
    return out, set_here


def llm() -> LLMProvider | None:
    """The LLM Dream types links with (None: the rules type them)."""
    values, _ = inherit(knobs.values(), *LLM)
    return llm_from(values)


def embed_texts(texts: Sequence[str], *, kind: EmbedKind, level: str) -> list[list[float]]:
    """Embeddings for Dream: the sidecar when Dream has an embedding endpoint of its own."""
    values, set_here = inherit(knobs.values(), *EMBED)
    if not set_here:
        return main_embed_texts(texts, kind=kind, level=level)
    provider = remote_embedder(
        str(values["CTX_EMBED_PROVIDER"]),
        str(values["CTX_EMBED_MODEL"]),
        int(values["CTX_EMBED_DIM"]),
        str(values["CTX_EMBED_BASE_URL"]),
        str(values["CTX_EMBED_API_KEY"]),
        float(values["CTX_EMBED_TIMEOUT"]),
    )
    return main_embed_texts(texts, kind=kind, level=level, provider=provider)


def describe() -> dict[str, dict[str, Any]]:
    """What `dream stats` shows: each model, its endpoint (credentials removed) and whether
    Dream has its own or inherits the main one. Never a key."""
    values = knobs.values()
    out = {}
    for name, (own, main) in {"llm": LLM, "embed": EMBED}.items():
        merged, set_here = inherit(values, own, main)
        base = str(merged.get(main + "BASE_URL") or "")
        out[name] = {
            "provider": merged.get(main + "PROVIDER") or "none",
            "model": merged.get(main + "MODEL") or "",
            "endpoint": outbound.redact_url(base) if base else "",
            "own": bool(set_here),
        }
    return out
