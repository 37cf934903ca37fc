"""One dream cycle, and the loop a worker runs:

    claim → candidates → typing (LLM or rules) → checks → ≤ N links → write (replace) →
    supersession, quality, canonical promotion → back-off cooldown → release

The mode is read with every claim; `off` also stops a running cycle at its next step (after a
throttle pause or model call, and at the write, which re-reads it under the claim's lock).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, OperationalError, transaction
from django.utils import timezone

from ctx.errors import SensitivityBlocked
from ctx.models import Block
from ctx.sensitivity import highest
from dream import backoff, claims, links, selection
from dream.candidates import Candidate, find, title_threshold
from dream.claims import Claim
from dream.services import mode_get
from dream.typing import Proposal, llm_type, rules_type
from retrieval.llm import LLMError, get_llm

log = logging.getLogger("ctx.dream")
trace = logging.getLogger("ctx.dream.claims")  # claim/release timestamps (debug level)

TRANSIENT: tuple[type[Exception], ...] = (LLMError, OperationalError)


class _Stopped(Exception):
    """The mode went off mid-cycle: roll back and hand the block back untouched."""


class _Lost(Exception):
    """The claim expired and another worker holds the block now: write nothing."""


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
    llm = get_llm()
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


@dataclass(frozen=True)
class Plan:
    chosen: list[Proposal]  # what the cycle writes (capped)
    valid: set[tuple[str, str, str]]  # every proposal that passed the checks (before the cap)
    evaluated: list[str]  # the candidates' ids


def _write(
    claim: Claim, plan: Plan, now: datetime, next_state: tuple[int, str, datetime]
) -> tuple[links.Written | None, str]:
    """The cycle's one transaction: lock, re-check claim and mode, write, schedule, release."""
    cfg = _cfg()
    src, chosen = claim.source.id, plan.chosen
    old = links.rejudged_links(src, plan.evaluated) if chosen else []
    ends = {src, *(p.source_id for p in chosen), *(p.target_id for p in chosen)}
    ends |= {e for s, t, _ in old for e in (s, t)}
    level, outcome, next_at = next_state
    with transaction.atomic():
        links.lock_blocks(ends)
        mode = claims.lock_owned(claim, cfg["CTX_DREAM_INITIAL_MODE"])
        if mode is None:
            raise _Lost()
        if mode == "off":
            raise _Stopped()
        written = _apply(claim, plan, old, now) if chosen else None
        if written is not None and (written.created or written.removed):
            level, outcome = 0, "changed"
            next_at = now + backoff.cooldown(0, backoff.Policy.from_settings(cfg))
        claims.release(claim, next_at=next_at, level=level, outcome=outcome, now=now)
    return written, outcome


def _apply(
    claim: Claim, plan: Plan, old: list[tuple[str, str, str]], now: datetime
) -> links.Written:
    cfg = _cfg()
    src, chosen = claim.source.id, plan.chosen
    minimum = cfg["CTX_DREAM_SUPERSEDE_MIN"]
    created, updated = links.upsert(chosen, found_by=src, now=now)
    removed = links.remove_stale(plan.valid, old)
    superseded = links.supersede(chosen, minimum=minimum)
    restored = links.restore([t for _, t, c in removed if c == "supersedes"], minimum=minimum)
    touched = {src, *(p.target_id for p in chosen), *(p.source_id for p in chosen)}
    touched |= {e for s, t, _ in removed for e in (s, t)}
    links.update_quality(touched, canonical_support=cfg["CTX_DREAM_CANONICAL_SUPPORT"])
    return links.Written(created, updated, len(removed), superseded, restored)


def run_cycle(claim: Claim, *, mode: str, now: datetime | None = None) -> CycleResult:
    """Run one claimed cycle to its end; never raises for a failure of this block."""
    cfg = _cfg()
    now = now or timezone.now()
    policy = backoff.Policy.from_settings(cfg)
    result = CycleResult(block_id=claim.source.id)
    try:
        _cycle(claim, mode, now, policy, result)
    except _Stopped:
        trace.debug("release %s %s %.6f", claim.source.id, claim.worker, time.monotonic())
        claims.abandon(claim)
        result.outcome = "stopped"
    except _Lost:
        result.outcome = "lost"
    except TRANSIENT as exc:
        log.warning("dream: transient failure on %s (%s); retry soon", claim.source.id, exc)
        _release(claim, now + backoff.retry_delay(policy), claim.level, "retry", now, False)
        result.outcome = "retry"
    except Exception:
        log.exception("dream: cycle of %s failed", claim.source.id)
        level = backoff.next_level(claim.level, "unchanged", policy)
        _release(claim, now + backoff.cooldown(level, policy), level, "error", now, True)
        result.outcome = "error"
    return result


def _release(
    claim: Claim, next_at: datetime, level: int, outcome: str, now: datetime, counted: bool
) -> None:
    trace.debug("release %s %s %.6f", claim.source.id, claim.worker, time.monotonic())
    try:
        claims.release(
            claim,
            next_at=next_at,
            level=level,
            outcome=outcome,
            now=now,
            failed=True,
            counted=counted,
        )
    except DatabaseError:  # the database is gone: the claim's TTL frees the block
        log.warning("dream: could not release %s", claim.source.id, exc_info=True)


def _cycle(
    claim: Claim, mode: str, now: datetime, policy: backoff.Policy, result: CycleResult
) -> None:
    cfg = _cfg()
    cands = find(claim.source, k=cfg["CTX_DREAM_CANDIDATES"], chars=claims.CONTENT_CHARS)
    result.candidates = len(cands)
    proposals = _type(claim, cands, mode, result) if cands else []
    ok, result.rejected = selection.checked(proposals, claim.source, {c.id: c for c in cands})
    plan = Plan(
        chosen=selection.select(ok, cfg["CTX_DREAM_MAX_LINKS"]),
        valid={(p.source_id, p.target_id, p.link_class) for p in ok},
        evaluated=[c.id for c in cands],
    )
    # inert: nothing even remotely related (no proposal at all), so back off far at once
    outcome = "unchanged" if proposals else "inert"
    level = backoff.next_level(claim.level, outcome, policy)  # type: ignore[arg-type]
    next_state = (level, outcome, now + backoff.cooldown(level, policy))
    trace.debug("release %s %s %.6f", claim.source.id, claim.worker, time.monotonic())
    written, result.outcome = _write(claim, plan, now, next_state)
    if written is not None:
        result.written = written.created + written.updated
        result.created, result.removed = written.created, written.removed


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
        mode, claim = claims.claim_next(
            worker=worker, now=clock(), ttl=ttl, default_mode=cfg["CTX_DREAM_INITIAL_MODE"]
        )
        summary.mode = mode
        if claim is None:
            break
        trace.debug("claim %s %s %.6f", claim.source.id, worker, time.monotonic())
        result = run_cycle(claim, mode=mode, now=clock())
        summary.cycles += 1
        summary.outcomes[result.outcome] += 1
        summary.links_created += result.created
        if result.outcome == "stopped":
            break
