"""ctx.E010: the embedding provider's dimension must match the vector column."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from ctx import hooks, knobs
from ctx.models import EMBED_DIM
from retrieval.llm import config_problems


@register()
def check_embedding_dimension(app_configs: Any, **kwargs: Any) -> list[Error]:
    dim = knobs.configured("CTX_EMBED_DIM")
    if dim == EMBED_DIM:
        return []
    return [
        Error(
            f"CTX_EMBED_DIM is {dim} but the block embedding column holds {EMBED_DIM}-d vectors.",
            hint="Use a provider with matching dimensions, or migrate the column and re-embed.",
            id="ctx.E010",
        )
    ]


@register()
def check_llm_settings(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E011: an LLM provider needs its URL, model and (for hosted APIs) a key."""

    return [Error(problem, id="ctx.E011") for problem in config_problems(settings.CTX)]


@register()
def check_query_stages(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E012: every name in CTX_QUERY_STAGES must be a registered stage."""
    known = hooks.QUERY_STAGES.as_dict()
    unknown = [n for n in knobs.configured("CTX_QUERY_STAGES") if n not in known]
    if not unknown:
        return []
    return [
        Error(
            f"Unknown query stages in CTX_QUERY_STAGES: {', '.join(unknown)}.",
            hint=f"Known stages: {', '.join(sorted(known))}.",
            id="ctx.E012",
        )
    ]
