"""Conflicts as history: the facts on one single-valued slot (scope, subject, attribute) form
a chain, oldest first, each superseded by the next.

The chain is a function of the slot's live facts, computed again whenever one of them comes
or goes, so a forgotten source re-opens the fact it had superseded. Order: the time the fact
was last said, then a correction after what it corrects, then its confidence (higher
confidence wins on ties of time). A fact is
valid from when it was first said until its successor was said; the successor supersedes it
(`superseded_by`, a `supersedes` link, lifecycle snapshot) and the old block stays, so a query
`as_of` a moment in its window still finds it. A correction lowers the confidence of the fact
it corrects.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from django.db.models import Q

from ctx.models import Block, Lifecycle
from dream.models import Link, LinkClass, LinkOrigin
from dream.services import LinkInput, link_upsert
from memory.models import Fact

CORRECTED = 0.5  # a corrected fact keeps this share of its confidence
Slot = tuple[int, str, str]  # scope id, subject, attribute


@dataclass(frozen=True)
class Member:
    """What the chain reads of one fact (pure data, so the order is unit-testable)."""

    id: str
    said_at: datetime
    confidence: float
    corrects: bool


def chain(members: Iterable[Member]) -> list[Member]:
    """Oldest first: by the time last said; on ties of time a correction comes after what it
    corrects, then the more confident after the less; then id (stable)."""
    return sorted(members, key=lambda m: (m.said_at, m.corrects, m.confidence, m.id))


def resolve(slots: Iterable[Slot]) -> int:
    """Recompute every given slot; returns how many facts are superseded now."""
    wanted = set(slots)
    if not wanted:
        return 0
    q = Q()
    for scope_id, subject, attribute in wanted:
        q |= Q(scope_id=scope_id, subject=subject, attribute=attribute)
    facts = list(Fact.objects.filter(q, single=True).select_related("block"))
    by_slot: dict[Slot, list[Fact]] = {}
    for fact in facts:
        if not fact.block.archived:
            by_slot.setdefault((fact.scope_id, fact.subject, fact.attribute), []).append(fact)
    return sum(_apply(group) for group in by_slot.values())


def _member(fact: Fact) -> Member:
    when = fact.said_at or fact.block.created_at
    return Member(str(fact.pk), when, fact.base_confidence, fact.corrects)


def _apply(group: list[Fact]) -> int:
    by_id = {str(f.pk): f for f in group}
    order = [by_id[m.id] for m in chain(_member(f) for f in group)]
    successors = dict(zip(order, [*order[1:], None], strict=True))
    for fact, successor in successors.items():
        _set(fact, successor)
    if len(order) > 1:  # a lone fact has no links in its slot (a purge took them along)
        _links(order)
    return len(order) - 1


def _set(fact: Fact, successor: Fact | None) -> None:
    block = fact.block
    confidence = fact.base_confidence
    if successor is None:
        valid_to, parent, lifecycle = None, None, Lifecycle.KNOWLEDGE
    else:
        valid_to = max(successor.said_at or successor.block.created_at, _start(block))
        parent, lifecycle = successor.block_id, Lifecycle.SNAPSHOT
        if successor.corrects:
            confidence = round(confidence * CORRECTED, 4)
    if (block.valid_to, block.superseded_by_id, block.lifecycle) != (valid_to, parent, lifecycle):
        Block.objects.filter(pk=block.pk).update(
            valid_to=valid_to, superseded_by_id=parent, lifecycle=lifecycle
        )
    if fact.confidence != confidence:
        Fact.objects.filter(pk=fact.pk).update(confidence=confidence)


def _start(block: Block) -> datetime:
    return block.valid_from or block.created_at


def _links(order: list[Fact]) -> None:
    """A `supersedes` link from each fact to its predecessor; stale ones among the slot go."""
    ids = [f.block_id for f in order]
    wanted = {(str(new.block_id), str(old.block_id)) for old, new in pairwise(order)}
    present = Link.objects.filter(
        link_class=LinkClass.SUPERSEDES,
        origin=LinkOrigin.EXTRACTION,
        source_id__in=ids,
        target_id__in=ids,
    )
    have: set[tuple[str, str]] = set()
    for link in present:
        pair = (str(link.source_id), str(link.target_id))
        if pair in wanted:
            have.add(pair)
        else:
            link.delete()
    for new_id, old_id in sorted(wanted - have):
        data = LinkInput(
            new_id,
            old_id,
            LinkClass.SUPERSEDES,
            1.0,
            origin=LinkOrigin.EXTRACTION,
            evidence={"reason": "a later statement on the same subject and attribute"},
        )
        link_upsert(data)
