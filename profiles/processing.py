"""Signals → interpretations → the profile's next version (run by the `profiles.process` task).

Two steps, so that a slow LLM never holds the profile's lock:
1. **Interpret**: pending signals are claimed a few at a time (`FOR UPDATE SKIP LOCKED`: two
   workers never read the same signal), read by the interpreter (the rules, or the LLM when
   one is configured and `CTX_PROFILES_INTERPRETER` is auto), and their interpretations and
   proposed facts stored; the signal is `interpreted`.
2. **Synthesize**: the profile row is locked, every interpreted signal (oldest first) goes
   through `profiles.core.synthesis.synthesize` at once, and a change makes a new version with
   its change record; the signals are `applied`, the facts tier follows the new state.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from ctx import knobs
from profiles import selectors
from profiles.core.interpret import (
    Interpretation as CoreInterpretation,
)
from profiles.core.interpret import (
    Interpreter,
    LLMInterpreter,
    Reading,
    RuleInterpreter,
)
from profiles.core.interpret import (
    UserFact as CoreFact,
)
from profiles.core.profile import Profile as CoreProfile
from profiles.core.profile import change_to_dict
from profiles.core.synthesis import synthesize
from profiles.models import (
    FactStatus,
    Interpretation,
    Profile,
    Signal,
    SignalStatus,
    UserFact,
)
from profiles.services import add_version, save_state

log = logging.getLogger("ctx.profiles")

CLAIM = 20  # signals read per claim: a short transaction, even with an LLM
PIPELINE = "profiles.interpret"
STALE_AFTER = timedelta(seconds=10)  # the sweep leaves a just-recorded signal to its task


def interpreter(tenant_id: int | None = None) -> Interpreter:
    """The LLM interpreter when one is configured (and not switched off), else the rules."""
    if knobs.value("CTX_PROFILES_INTERPRETER", tenant_id) == "rules":
        return RuleInterpreter()
    from retrieval.llm import get_llm  # here: the LLM stack loads only where it may be used

    llm = get_llm()
    if llm is None:
        return RuleInterpreter()

    def complete(messages: Sequence[Any], schema: dict[str, Any]) -> Any:
        result = llm.complete(list(messages), schema=schema, max_tokens=512, pipeline=PIPELINE)
        return result.json

    return LLMInterpreter(complete)


def profile_process(profile_id: int) -> dict[str, Any]:
    """Interpret the profile's pending signals, then synthesize; what happened, for the log."""
    profile = Profile.objects.filter(pk=profile_id).only("tenant_id", "state").first()
    if profile is None:
        return {"profile": profile_id, "missing": True}
    read = interpret_pending(profile)
    version = synthesize_ready(profile_id)
    return {"profile": profile_id, "interpreted": read, "version": version}


# --- 1. interpret -----------------------------------------------------------------------------


def interpret_pending(profile: Profile) -> int:
    reader = interpreter(profile.tenant_id)
    hint = str(profile.state.get("interpretation_hint", ""))
    done = 0
    while True:
        with transaction.atomic():
            claimed = list(
                Signal.objects.filter(profile_id=profile.pk, status=SignalStatus.PENDING)
                .select_for_update(skip_locked=True)
                .select_related("profile")
                .order_by("created_at", "received_at")[:CLAIM]
            )
            for row in claimed:
                _record(row, reader.interpret(selectors.core_signal(row), hint))
        done += len(claimed)
        if len(claimed) < CLAIM:
            return done


def _record(row: Signal, reading: Reading) -> None:
    Interpretation.objects.bulk_create(
        Interpretation(
            signal=row,
            scope_id=row.scope_id,
            position=i,
            dimension=item.dimension,
            aspect=item.aspect,
            direction=item.direction,
            preference=item.preference,
            confidence=item.confidence,
            reasoning=item.reasoning[:300],
            delta=item.delta,
            target=item.target,
            adjustment=item.adjustment,
        )
        for i, item in enumerate(reading.interpretations)
    )
    UserFact.objects.bulk_create(
        UserFact(
            profile_id=row.profile_id,
            scope_id=row.scope_id,
            signal=row,
            key=fact.key,
            value=fact.value,
            private=fact.private,
        )
        for fact in reading.facts
    )
    row.status = SignalStatus.INTERPRETED
    row.interpreter = reading.source
    row.reading_note = reading.note
    row.save(update_fields=["status", "interpreter", "reading_note"])


# --- 2. synthesize ----------------------------------------------------------------------------


def synthesize_ready(profile_id: int) -> int | None:
    """Apply every interpreted signal; the new version number, or None when nothing changed."""
    with transaction.atomic():
        row = Profile.objects.select_for_update().filter(pk=profile_id).first()
        if row is None:
            return None
        ready = list(
            row.signals.filter(status=SignalStatus.INTERPRETED)
            .order_by("created_at", "received_at")
            .prefetch_related("interpretations")
        )
        if not ready:
            return None
        return _apply(row, ready)


def _apply(row: Profile, ready: list[Signal]) -> int | None:
    state = selectors.core_profile(row)
    items = [_core(i, s.sid) for s in ready for i in sorted_interpretations(s)]
    facts = _proposed(row, ready)
    new, change = synthesize(state, items, [f for _, f in facts], now=timezone.now())
    version = None
    if not change.empty:
        save_state(row, new)
        row.save()
        add_version(row, new, change_to_dict(change))
        version = new.version
    _settle_facts(row, new, facts)
    ids = [s.pk for s in ready]
    Signal.objects.filter(pk__in=ids).update(status=SignalStatus.APPLIED, version=version)
    return version


def sorted_interpretations(row: Signal) -> list[Interpretation]:
    return sorted(row.interpretations.all(), key=lambda i: i.position)


def _core(row: Interpretation, signal_id: str) -> CoreInterpretation:
    return CoreInterpretation(
        dimension=row.dimension,
        preference=row.preference,
        direction=row.direction,  # type: ignore[arg-type]  # written from a core value
        confidence=row.confidence,
        reasoning=row.reasoning,
        aspect=row.aspect,
        delta=row.delta,
        target=row.target,
        adjustment=row.adjustment,
        signal_id=signal_id,
    )


def _proposed(row: Profile, ready: list[Signal]) -> list[tuple[UserFact, CoreFact]]:
    """The facts read from these signals, in the signals' order."""
    order = {s.pk: i for i, s in enumerate(ready)}
    sids = {s.pk: s.sid for s in ready}
    found = row.facts.filter(status=FactStatus.PROPOSED, signal_id__in=list(order))
    rows = sorted(found, key=lambda f: (order[f.signal_id], f.pk))  # type: ignore[index]
    return [
        (f, CoreFact(f.key, f.value, f.private, sids[f.signal_id]))  # type: ignore[index]
        for f in rows
    ]


def _settle_facts(row: Profile, state: CoreProfile, facts: list[tuple[UserFact, CoreFact]]) -> None:
    """The facts tier follows the synthesized state: the last statement of a key becomes
    current (with the merged value), earlier ones and the old current are superseded, and a
    retraction (an empty value) retires the key."""
    now_by_key = {f.key: f for f in state.facts}
    last = {f.key: u.pk for u, f in facts}
    for key in {f.key for _, f in facts}:
        ended = FactStatus.SUPERSEDED if key in now_by_key else FactStatus.RETRACTED
        row.facts.filter(key=key, status=FactStatus.CURRENT).update(status=ended)
    for stored, fact in facts:
        if stored.pk != last[fact.key]:
            stored.status = FactStatus.SUPERSEDED
        elif fact.key in now_by_key:
            merged = now_by_key[fact.key]
            stored.status, stored.value, stored.private = (
                FactStatus.CURRENT,
                merged.value,
                merged.private,
            )
        else:
            stored.status = FactStatus.RETRACTED
        stored.save(update_fields=["status", "value", "private", "changed_at"])


# --- the sweep --------------------------------------------------------------------------------


def sweep() -> list[int]:
    """Profiles with signals left open for longer than a task takes (a broker outage lost
    their task): processed here. Runs on beat, in the system context."""
    cutoff = timezone.now() - STALE_AFTER
    due = (
        Signal.objects.exclude(status=SignalStatus.APPLIED)
        .filter(received_at__lt=cutoff)
        .values_list("profile_id", flat=True)
        .distinct()
    )
    done = []
    for profile_id in list(due)[:100]:
        try:
            profile_process(profile_id)
            done.append(profile_id)
        except Exception:  # one profile's failure must not stop the others
            log.exception("profiles sweep: profile %s failed", profile_id)
    return done
