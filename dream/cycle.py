"""Dream cycles, and the loop a worker runs:

    claim a batch → candidates (one statement for the batch) → per block: typing (LLM or
    rules) → checks → ≤ N links → one write for the batch (replace semantics, in claim order)
    → supersession, quality, canonical promotion → back-off cooldowns → release

A batch is up to CTX_DREAM_CLAIM_SIZE blocks of one tenant; with an LLM, or in throttled mode,
it is one block, so a slow model call never holds other claims. The mode is read with every
claim; `off` also stops running cycles at their next step (after a throttle pause or model
call, and at the write, which re-reads it under the claims' locks).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, OperationalError, transaction
from django.utils import timezone

from ctx.errors import SensitivityBlocked
from ctx.models import Block
from ctx.sensitivity import highest
from dream import backoff, claims, engines, links, selection
from dream.candidates import Candidate, find_many, title_threshold
from dream.claims import Claim
from dream.link_typing import Proposal, llm_type, rules_type
from dream.replace import CycleCounts, CyclePlan, Existing, Net, rejudged, replay
from dream.services import mode_get
from retrieval.llm import LLMError

log = logging.getLogger("ctx.dream")
trace = logging.getLogger("ctx.dream.claims")  # claim/release timestamps (debug level)

TRANSIENT: tuple[type[Exception], ...] = (LLMError, OperationalError)


class _Stopped(Exception):
    """The mode went off mid-cycle: roll back and hand the block back untouched."""


@dataclass
class CycleResult:
    block_id: str
    outcome: str = ""  # changed | unchanged | inert | retry | stopped | lost | error
    typer: str = "rules"
    candidates: int = 0
    written: int = 0
    created: int = 0
    removed: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _cfg() -> dict[str, Any]:
    return settings.CTX


def _pause(seconds: float) -> None:
    """Throttled mode's pause, then a step boundary: `off` stops the cycle here."""
    if seconds > 0:
        time.sleep(seconds)
    if mode_get() == "off":
        raise _Stopped()


def _type(claim: Claim, cands: list[Candidate], mode: str, result: CycleResult) -> list[Proposal]:
    cfg = _cfg()
    llm = engines.llm()
    throttle = cfg["CTX_DREAM_THROTTLE_SECONDS"] if mode == "throttled" else 0.0
    if throttle:  # without an LLM the pause stands where the model call would be
        _pause(throttle)
    if llm is None:
        return rules_type(claim.source, cands)
    top = cands[: cfg["CTX_DREAM_LLM_CANDIDATES"]]
    try:
        proposals = llm_type(llm, claim.source, top, sensitivity=_level(claim, top))
    except SensitivityBlocked:  # a note above CTX_LLM_TRUST: the rules type it, nothing sent
        result.typer = "rules (sensitivity_blocked)"
        return rules_type(claim.source, cands)
    except LLMError as err:
        if err.kind == "outbound":
            raise  # transient: retried later without counting
        log.warning("dream: unusable LLM answer (%s); rules type this cycle", err.kind)
        result.typer = f"rules (llm {err.kind})"
        return rules_type(claim.source, cands)
    result.typer = "llm"
    if mode_get() == "off":
        raise _Stopped()
    return proposals


def _level(claim: Claim, cands: list[Candidate]) -> str:
    """The highest stored sensitivity among the notes the LLM would read."""
    ids = [claim.source.id, *(c.id for c in cands)]
    levels = Block.objects.filter(pk__in=ids).values_list("sensitivity", flat=True)
    return highest(*levels)


@dataclass
class _Item:
    """One claimed block on its way through a batch."""

    claim: Claim
    result: CycleResult
    plan: CyclePlan | None = None
    next_state: tuple[int, str, datetime] | None = None  # level, outcome, next_at
    traced: bool = False  # its release is in the claim trace

    @property
    def id(self) -> str:
        return self.claim.source.id


def run_cycle(claim: Claim, *, mode: str, now: datetime | None = None) -> CycleResult:
    """Run one claimed cycle to its end; never raises for a failure of this block."""
    return run_batch([claim], mode=mode, now=now)[0]


def run_batch(batch: list[Claim], *, mode: str, now: datetime | None = None) -> list[CycleResult]:
    """Run a claimed batch to its end, in claim order; never raises for a failure of its
    blocks. A failure of the batch's shared statements (candidates, the write) is retried
    block by block, so one bad block cannot fail its batch neighbours."""
    items = [_Item(claim, CycleResult(block_id=claim.source.id)) for claim in batch]
    _run_items(items, mode, now or timezone.now())
    return [it.result for it in items]


def _run_items(items: list[_Item], mode: str, now: datetime) -> None:
    policy = backoff.Policy.from_settings(_cfg())
    split = False
    try:
        _run(items, mode, now, policy)
    except _Stopped:
        open_items = [it for it in items if not it.result.outcome]
        for it in open_items:
            _trace_release(it)
            it.result.outcome = "stopped"
        claims.abandon([it.claim for it in open_items])
    except TRANSIENT as exc:
        log.warning("dream: transient failure on %d blocks (%s); retry soon", len(items), exc)
        for it in items:
            if not it.result.outcome:
                _release(it, now + backoff.retry_delay(policy), it.claim.level, "retry", now)
    except Exception:
        if len(items) == 1:
            log.exception("dream: cycle of %s failed", items[0].id)
            _fail(items[0], now, policy)
        else:
            log.warning("dream: batch of %d failed; block by block", len(items), exc_info=True)
            split = True
    if split:  # outside the handler: each block's own failure is logged on its own
        for it in items:
            if not it.result.outcome:
                _run_items([it], mode, now)


def _trace_release(it: _Item) -> None:
    """The claim trace's release, once per claim, before the statement that releases it
    commits (so a traced hold never outlasts the real one)."""
    if not it.traced:
        trace.debug("release %s %s %.6f", it.id, it.claim.worker, time.monotonic())
        it.traced = True


def _fail(it: _Item, now: datetime, policy: backoff.Policy) -> None:
    level = backoff.next_level(it.claim.level, "unchanged", policy)
    _release(it, now + backoff.cooldown(level, policy), level, "error", now, counted=True)


def _release(
    it: _Item, next_at: datetime, level: int, outcome: str, now: datetime, counted: bool = False
) -> None:
    """End a failed cycle: `outcome` (retry or error), the failure counted."""
    _trace_release(it)
    it.result.outcome = outcome
    try:
        claims.release(
            it.claim,
            next_at=next_at,
            level=level,
            outcome=outcome,
            now=now,
            failed=True,
            counted=counted,
        )
    except DatabaseError:  # the database is gone: the claim's TTL frees the block
        log.warning("dream: could not release %s", it.id, exc_info=True)


def _run(items: list[_Item], mode: str, now: datetime, policy: backoff.Policy) -> None:
    cfg = _cfg()
    found = find_many(
        [it.claim.source for it in items], k=cfg["CTX_DREAM_CANDIDATES"], chars=claims.CONTENT_CHARS
    )
    for it in items:
        _plan(it, found.get(it.id, []), mode, now, policy)
    planned = [it for it in items if it.plan is not None]
    for it in planned:
        _trace_release(it)
    if planned:
        _write(planned, now)


def _plan(
    it: _Item, cands: list[Candidate], mode: str, now: datetime, policy: backoff.Policy
) -> None:
    """Type and check one block's candidates; a failure here ends this block's cycle only."""
    it.result.candidates = len(cands)
    try:
        proposals = _type(it.claim, cands, mode, it.result) if cands else []
    except TRANSIENT as exc:
        log.warning("dream: transient failure on %s (%s); retry soon", it.id, exc)
        _release(it, now + backoff.retry_delay(policy), it.claim.level, "retry", now)
        return
    except _Stopped:
        raise
    except Exception:
        log.exception("dream: cycle of %s failed", it.id)
        _fail(it, now, policy)
        return
    ok, it.result.rejected = selection.checked(proposals, it.claim.source, {c.id: c for c in cands})
    it.plan = CyclePlan(
        block_id=it.id,
        chosen=selection.select(ok, _cfg()["CTX_DREAM_MAX_LINKS"]),
        valid=frozenset((p.source_id, p.target_id, p.link_class) for p in ok),
        evaluated=frozenset(c.id for c in cands),
    )
    # inert: nothing even remotely related (no proposal at all), so back off far at once
    outcome = "unchanged" if proposals else "inert"
    level = backoff.next_level(it.claim.level, outcome, policy)  # type: ignore[arg-type]
    it.next_state = (level, outcome, now + backoff.cooldown(level, policy))


def _write(items: list[_Item], now: datetime) -> None:
    """The batch's one transaction: lock, re-check claims and mode, write, schedule, release."""
    cfg = _cfg()
    plans = [it.plan for it in items if it.plan is not None]
    ends = _ends(plans, links.links_around([p.block_id for p in plans]))
    with transaction.atomic():
        live = links.lock_blocks(ends)
        mode, owned = claims.lock_owned([it.claim for it in items], cfg["CTX_DREAM_INITIAL_MODE"])
        if mode == "off":
            raise _Stopped()
        mine = [it for it in items if it.id in owned]  # the others: TTL passed, text changed
        net = replay([_live_only(it, live) for it in mine], links.links_around(owned))
        _apply(net, now)
        releases = [_release_of(it, net.counts.get(it.id), now) for it in mine]
        claims.release_many(releases, now=now)
    # Results only once committed: after a failed write every block is still open and is
    # released by the caller (retry, or block by block).
    for it in items:
        it.result.outcome = "lost"
    for it, release in zip(mine, releases, strict=True):
        _record(it.result, release.outcome, net.counts.get(it.id))


def _ends(plans: list[CyclePlan], around: list[Existing]) -> set[str]:
    """Every block the write may touch: the batch, the chosen links' ends, and the ends of
    the links its cycles re-judge (they may be removed, their targets restored)."""
    ends = {p.block_id for p in plans}
    for plan in plans:
        ends |= {e for p in plan.chosen for e in (p.source_id, p.target_id)}
    ends |= {e for k in rejudged(plans, around) for e in k[:2]}
    return ends


def _live_only(it: _Item, live: dict[str, int]) -> CyclePlan:
    """The plan without links to blocks archived or moved since the candidates were read."""
    assert it.plan is not None
    scope = live.get(it.id)
    chosen = [
        p
        for p in it.plan.chosen
        if scope is not None and live.get(p.source_id) == live.get(p.target_id) == scope
    ]
    return replace(it.plan, chosen=chosen)


def _apply(net: Net, now: datetime) -> None:
    cfg = _cfg()
    minimum = cfg["CTX_DREAM_SUPERSEDE_MIN"]
    # Each block whose link set this write changes (a link created or removed, not just
    # refreshed) keeps the set it had: POST /api/dream/revert puts it back.
    links.keep_sets([b for b, c in net.counts.items() if c.created or c.removed], now=now)
    links.upsert(net.upserts, now=now)
    links.delete(net.deletes)
    links.supersede([p for p, _ in net.upserts.values()], minimum=minimum)
    removed = [k for c in net.counts.values() for k in c.removed]
    links.restore([t for _, t, c in removed if c == "supersedes"], minimum=minimum)
    touched = {b for b, c in net.counts.items() if c.created or c.updated or c.removed}
    touched |= {e for k in [*net.upserts, *removed] for e in k[:2]}
    links.update_quality(touched, canonical_support=cfg["CTX_DREAM_CANONICAL_SUPPORT"])


def _release_of(it: _Item, counts: CycleCounts | None, now: datetime) -> claims.Release:
    """How the cycle ends: a cycle that created or removed a link starts its back-off over."""
    assert it.next_state is not None
    level, outcome, next_at = it.next_state
    if counts is not None and (counts.created or counts.removed):
        level, outcome = 0, "changed"
        next_at = now + backoff.cooldown(0, backoff.Policy.from_settings(_cfg()))
    return claims.Release(it.claim, next_at, level, outcome)


def _record(result: CycleResult, outcome: str, counts: CycleCounts | None) -> None:
    result.outcome = outcome
    if counts is not None:
        result.written = counts.created + counts.updated
        result.created, result.removed = counts.created, len(counts.removed)


@dataclass
class RunSummary:
    cycles: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    links_created: int = 0
    seconds: float = 0.0
    mode: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "cycles": self.cycles,
            "outcomes": dict(self.outcomes),
            "links_created": self.links_created,
            "seconds": round(self.seconds, 3),
            "mode": self.mode,
        }


def run_cycles(
    *,
    worker: str | None = None,
    max_cycles: int | None = None,
    max_seconds: float | None = None,
    clock: Callable[[], datetime] = timezone.now,
) -> RunSummary:
    """Claim and run cycles until nothing is due, the mode is off, or a budget is spent."""
    cfg = _cfg()
    worker = worker or worker_name()
    max_cycles = max_cycles if max_cycles is not None else cfg["CTX_DREAM_BATCH"]
    budget = max_seconds if max_seconds is not None else cfg["CTX_DREAM_TASK_SECONDS"]
    ttl = timedelta(seconds=cfg["CTX_DREAM_CLAIM_TTL"])
    started = time.monotonic()
    summary = RunSummary()
    with title_threshold():
        _loop(summary, worker, max_cycles, budget, ttl, clock, started)
    summary.seconds = time.monotonic() - started
    return summary


def _loop(
    summary: RunSummary,
    worker: str,
    max_cycles: int,
    budget: float,
    ttl: timedelta,
    clock: Callable[[], datetime],
    started: float,
) -> None:
    cfg = _cfg()
    while summary.cycles < max_cycles and time.monotonic() - started < budget:
        size = 1 if engines.llm() is not None else cfg["CTX_DREAM_CLAIM_SIZE"]
        mode, batch = claims.claim_batch(
            worker=worker,
            now=clock(),
            ttl=ttl,
            default_mode=cfg["CTX_DREAM_INITIAL_MODE"],
            limit=min(size, max_cycles - summary.cycles),
        )
        summary.mode = mode
        if not batch:
            break
        for claim in batch:
            trace.debug("claim %s %s %.6f", claim.source.id, worker, time.monotonic())
        results = run_batch(batch, mode=mode, now=clock())
        summary.cycles += len(results)
        for result in results:
            summary.outcomes[result.outcome] += 1
            summary.links_created += result.created
        if any(result.outcome == "stopped" for result in results):
            break
