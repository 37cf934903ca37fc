"""`/api/search`: lexical search without any model (English and German FTS + title trigram)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctx import selectors
from ctx.models import BlockType
from ctx.principal import Principal
from retrieval import language
from retrieval.relevance import floored
from retrieval.search import Hit, attach_blocks, run_fused
from retrieval.sql import ArmWeights, Filters
from retrieval.text import other_script

# Without the semantic arm the remaining weights keep their design ratios.
LEXICAL_WEIGHTS = ArmWeights(semantic=0.0)


@dataclass(frozen=True)
class SearchParams:
    query: str
    limit: int = 10
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    types_exclude: list[str] = field(default_factory=list)
    categories_exclude: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    min_score: float | None = None  # the floor on the shown score (retrieval/relevance.py)

    def filters(self, principal: Principal) -> Filters:
        return Filters(
            scope_ids=selectors.readable_scope_ids(principal, self.scopes),
            category=self.category,
            categories_exclude=self.categories_exclude,
            tags=self.tags,
            types=self.types,
            types_exclude=self.excluded_types(),
            hide_tool_output=not self.category,
        )

    def excluded_types(self) -> list[str]:
        """What the caller left out, plus what a search never shows: system-meta blocks (the
        server's own bookkeeping) always, and digests unless asked for by type. A caller's
        `types_exclude` used to replace the digest exclusion and let digests back in."""
        implicit = [BlockType.SYSTEM_META]
        if BlockType.DIGEST not in self.types:
            implicit.append(BlockType.DIGEST)
        return list(dict.fromkeys([*self.types_exclude, *implicit]))


def _weights(query: str) -> ArmWeights:
    """Both languages' arms, as always; the `simple` arm when ArmWeights.simple_for says."""
    lang = language.detect(query).lang
    return LEXICAL_WEIGHTS.simple_for(lang, other_script=other_script(query))


def search(principal: Principal, params: SearchParams) -> list[Hit]:
    filters = params.filters(principal)
    if not filters.scope_ids:
        return []
    hits = run_fused(
        query=params.query, filters=filters, limit=params.limit, weights=_weights(params.query)
    )
    return attach_blocks(floored(hits, params.min_score))
