"""Replace semantics for a batch of cycles, as pure functions over literal data.

A worker writes the cycles of one claimed batch in one transaction with a handful of set-based
statements. The outcome must be exactly what writing the cycles one after the other, in batch
order, would give: a later cycle sees the links an earlier one created or removed (a block and
its neighbours are often claimed together, right after an embedding). `replay` runs that
sequence over the links as the transaction found them and returns the net effect (one upsert
or delete per link key, the last writer's data) plus each cycle's own counts, which decide its
back-off.

Per cycle (only when it proposes at least one link):
- re-judged: the unpinned dream links it proposed before (found_by) and those between its
  block and the candidates it evaluated now;
- each chosen proposal is created, or refreshes an unpinned dream link (found_by moves to this
  block); pinned links and links of other origins are left as they are;
- re-judged links it did not find valid again are removed (valid = every proposal that passed
  the checks, so links cut only by the per-cycle cap survive).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dream.link_typing import Proposal

Key = tuple[str, str, str]  # (source, target, class)


@dataclass(frozen=True)
class Existing:
    """A link row as the write's transaction found it."""

    key: Key
    replaceable: bool  # origin dream and not pinned
    found_by: str | None


@dataclass(frozen=True)
class CyclePlan:
    block_id: str
    chosen: list[Proposal]  # what the cycle writes (capped)
    valid: frozenset[Key]  # every proposal that passed the checks (before the cap)
    evaluated: frozenset[str]  # the candidates' ids


@dataclass
class CycleCounts:
    created: int = 0
    updated: int = 0
    removed: list[Key] = field(default_factory=list)


@dataclass
class Net:
    upserts: dict[Key, tuple[Proposal, str]]  # key → (proposal, found_by)
    deletes: set[Key]  # links that existed before the batch and are gone after it
    counts: dict[str, CycleCounts]


def key(p: Proposal) -> Key:
    return (p.source_id, p.target_id, p.link_class)


def _rejudged(state: dict[Key, Existing], block: str, evaluated: frozenset[str]) -> Iterable[Key]:
    for k, row in state.items():
        if not row.replaceable:
            continue
        source, target, _ = k
        if (
            row.found_by == block
            or (source == block and target in evaluated)
            or (target == block and source in evaluated)
        ):
            yield k


def rejudged(plans: list[CyclePlan], existing: Iterable[Existing]) -> set[Key]:
    """The existing links some cycle of the batch re-judges (and may remove)."""
    state = {row.key: row for row in existing}
    return {
        k for plan in plans if plan.chosen for k in _rejudged(state, plan.block_id, plan.evaluated)
    }


def replay(plans: list[CyclePlan], existing: Iterable[Existing]) -> Net:
    """The net effect of writing `plans` one after the other onto `existing`."""
    before = {row.key: row for row in existing}
    state = dict(before)
    final: dict[Key, tuple[Proposal, str] | None] = {}  # None: deleted
    counts: dict[str, CycleCounts] = {}
    for plan in plans:
        done = counts.setdefault(plan.block_id, CycleCounts())
        if not plan.chosen:
            continue  # nothing proposed: nothing replaced (a cycle that found nothing)
        old = sorted(_rejudged(state, plan.block_id, plan.evaluated))
        for p in plan.chosen:
            k = key(p)
            row = state.get(k)
            if row is not None and not row.replaceable:
                continue  # pinned, or another origin: never overwritten
            done.created += row is None
            done.updated += row is not None
            state[k] = Existing(k, True, plan.block_id)
            final[k] = (p, plan.block_id)
        for k in old:
            if k not in plan.valid:
                del state[k]
                done.removed.append(k)
                final[k] = None
    upserts = {k: v for k, v in final.items() if v is not None}
    deletes = {k for k, v in final.items() if v is None and k in before}
    return Net(upserts=upserts, deletes=deletes, counts=counts)
