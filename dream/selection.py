"""Checks on proposed links and the per-cycle cap: pure functions over literal data.

Checks (a proposal failing one is dropped, with the reason counted):
- both ends are the source and one of its candidates, in the same scope, not the same block;
- supersedes goes from a newer to an older block of the same category with similar titles;
- causal goes from the older block (the cause) to the newer one;
- undirected classes (topical, factual) are stored once per pair, smaller id first;
  recurrent links point from the earlier occurrence to the later one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from dream.candidates import Candidate, Source
from dream.link_typing import CAUSAL, RECURRENT, SUPERSEDES, Proposal, similar_titles
from dream.models import SYMMETRIC

# Among equally confident links of classes chosen equally often: the more telling class first.
PRIORITY = {SUPERSEDES: 4, RECURRENT: 3, CAUSAL: 2, "factual": 2, "topical": 1}


def _moment(node: Source | Candidate) -> tuple[object, str]:
    return (node.when, node.id)  # the id breaks ties so "newer" is a total order


def check(p: Proposal, src: Source, cands: dict[str, Candidate]) -> tuple[Proposal | None, str]:
    """The proposal as it may be written (direction normalised), or None and the reason."""
    if p.source_id == p.target_id:
        return None, "self"
    other_id = p.target_id if p.source_id == src.id else p.source_id
    if src.id not in (p.source_id, p.target_id) or other_id not in cands:
        return None, "unknown_block"
    other = cands[other_id]
    if other.scope_id != src.scope_id:
        return None, "scope"
    nodes: dict[str, Source | Candidate] = {src.id: src, other.id: other}
    a, b = nodes[p.source_id], nodes[p.target_id]
    if p.link_class == SUPERSEDES:
        if _moment(a) <= _moment(b):
            return None, "supersedes_not_newer"
        if a.category != b.category or not similar_titles(a.title, b.title, other.tsim):
            return None, "supersedes_not_similar"
    elif p.link_class == CAUSAL:
        if a.when >= b.when:
            return None, "causal_not_older"
    elif p.link_class == RECURRENT and _moment(a) > _moment(b):
        p = replace(p, source_id=b.id, target_id=a.id)
    elif p.link_class in SYMMETRIC and p.source_id > p.target_id:
        p = replace(p, source_id=p.target_id, target_id=p.source_id)
    return p, "ok"


def checked(
    proposals: list[Proposal], src: Source, cands: dict[str, Candidate]
) -> tuple[list[Proposal], dict[str, int]]:
    """Proposals that pass, one per (source, target, class) keeping the most confident."""
    best: dict[tuple[str, str, str], Proposal] = {}
    rejected: Counter[str] = Counter()
    for proposal in proposals:
        p, reason = check(proposal, src, cands)
        if p is None:
            rejected[reason] += 1
            continue
        key = (p.source_id, p.target_id, p.link_class)
        if key not in best or p.confidence > best[key].confidence:
            best[key] = p
    return list(best.values()), dict(rejected)


def select(proposals: list[Proposal], limit: int) -> list[Proposal]:
    """At most `limit` links, most confident first; on a tie (to two decimals) the class
    chosen least so far wins, so one cycle does not spend its budget on one kind of link;
    then the more telling class (PRIORITY)."""
    remaining = sorted(proposals, key=lambda p: (p.source_id, p.target_id, p.link_class))
    chosen: list[Proposal] = []
    per_class: Counter[str] = Counter()
    while remaining and len(chosen) < limit:
        pick = max(
            remaining,
            key=lambda p: (
                round(p.confidence, 2),
                -per_class[p.link_class],
                PRIORITY.get(p.link_class, 0),
                p.confidence,
            ),
        )
        remaining.remove(pick)
        chosen.append(pick)
        per_class[pick.link_class] += 1
    return chosen
