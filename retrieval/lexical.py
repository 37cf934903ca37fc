"""`/api/search`: lexical search without any model (English and German FTS + title trigram)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from ctx import selectors
from ctx import validation as v
from ctx.principal import Principal
from retrieval.search import Hit, attach_blocks, run_fused
from retrieval.sql import ArmWeights, Filters

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
    scopes: list[str] = field(default_factory=list)

    @classmethod
    def from_request(cls, data: dict[str, Any]) -> SearchParams:
        return cls(
            query=v.string(data, "query", max_len=v.MAX_QUERY),
            limit=v.integer(
                data, "limit", default=10, low=1, high=settings.CTX["CTX_SEARCH_MAX_LIMIT"]
            ),
            category=v.string(data, "category", max_len=v.MAX_CATEGORY, required=False) or None,
            tags=v.tags(data),
            types=v.types(data, "types"),
            types_exclude=v.types(data, "types_exclude"),
            scopes=v.scope_names(data),
        )

    def filters(self, principal: Principal) -> Filters:
        excluded = self.types_exclude or ([] if "digest" in self.types else ["digest"])
        return Filters(
            scope_ids=selectors.readable_scope_ids(principal, self.scopes),
            category=self.category,
            tags=self.tags,
            types=self.types,
            types_exclude=excluded,
        )


def search(principal: Principal, params: SearchParams) -> list[Hit]:
    filters = params.filters(principal)
    if not filters.scope_ids:
        return []
    hits = run_fused(
        query=params.query, filters=filters, limit=params.limit, weights=LEXICAL_WEIGHTS
    )
    return attach_blocks(hits)
