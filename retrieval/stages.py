"""Retrieval stages after fusion: one small interface, a registry, fail-open execution.

Every stage takes the hits and the query context and returns hits (reordered, rescored,
filtered or extended), and notes in `qc.explain` what it did. A stage that raises is skipped:
the query still answers with what the earlier stages produced.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ctx import hooks
from ctx.principal import Principal
from retrieval.search import Hit

log = logging.getLogger("ctx.stages")


@dataclass
class QueryContext:
    principal: Principal
    query: str
    now: datetime
    limit: int
    query_vector: list[float] | None = None
    # A comparison question's parts (retrieval/decompose.py) and their vectors, embedded in
    # one batch with the question.
    parts: dict[str, list[float] | None] = field(default_factory=dict)
    temporal: Any = None  # retrieval.temporal.TemporalIntent when the parser found one
    filters: Any = None  # retrieval.sql.Filters of the query: stages that add hits respect it
    retrieval: Any = None  # retrieval.search.Retrieval: raw arm scores, for stages that re-fuse
    explain: dict[str, Any] = field(default_factory=dict)


class Stage(ABC):
    name: str = ""

    @abstractmethod
    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        """The hits after this stage, best first."""


class SupersededFilter(Stage):
    """Drop a block when the block that supersedes it is also in the results; the successor
    answers where its predecessor ranked, when that is higher than its own place. (The
    predecessor's score says the question is about this fact; the update often shares fewer
    words with the question, "We now deploy on Thursdays", and would sink below neighbours.)"""

    name = "supersedes"

    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        if getattr(qc.temporal, "direction", None) == "past":  # dream: old versions are wanted
            qc.explain[self.name] = "skipped: the query asks about the past"
            return hits
        by_id = {h.id: h for h in hits}
        successors = {h.id: s for h in hits if (s := _successor_within(h, by_id)) is not None}
        for old_id, new_id in successors.items():
            by_id[new_id].score = max(by_id[new_id].score, by_id[old_id].score)
        qc.explain[self.name] = {"dropped": list(successors)}
        kept = [h for h in hits if h.id not in successors]
        return sorted(kept, key=lambda h: h.score, reverse=True) if successors else kept


def _successor_within(hit: Hit, present: dict[str, Hit]) -> str | None:
    successor = hit.block.superseded_by_id if hit.block is not None else None
    return str(successor) if successor is not None and str(successor) in present else None


def registry() -> dict[str, type[Stage]]:
    """Every stage by name, as the apps registered them (ctx.hooks.QUERY_STAGES): retrieval's
    own in its ready(), dream's graph expansion in dream's."""
    return hooks.QUERY_STAGES.as_dict()


DEFAULT_ORDER = ("gravity_cyclic", "gravity_linear", "feedback", "graph", "rerank", "supersedes")


def run_stages(
    qc: QueryContext,
    hits: list[Hit],
    order: tuple[str, ...] = DEFAULT_ORDER,
) -> list[Hit]:
    stages = registry()
    for name in order:
        if name not in stages:  # qc.E012 reports it at start; a query never crashes on it
            qc.explain[name] = "skipped: unknown stage"
            continue
        stage = stages[name]()
        started = time.perf_counter()
        try:
            hits = stage.run(qc, hits)
        except Exception as exc:  # fail open: a broken stage must not break the query
            log.warning("stage %s failed open", name, exc_info=True)
            qc.explain[name] = {"error": type(exc).__name__}
        qc.explain.setdefault("stage_ms", {})[name] = round(
            (time.perf_counter() - started) * 1000, 2
        )
    return hits
