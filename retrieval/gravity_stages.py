"""Temporal gravity as two retrieval stages: cyclic, then linear, within one total cap.

Blocks without dates keep their score (never penalised); every date of a block counts.
"""

from __future__ import annotations

from django.utils import timezone

from ctx import knobs
from retrieval.anchoring import block_dates
from retrieval.search import Hit
from retrieval.stages import QueryContext, Stage
from retrieval.temporal.gravity import best_cyclic, best_linear, cyclic_factor


def _cap(qc: QueryContext) -> float:
    """Live, and tenants may tune it (docs/settings.md)."""
    return float(knobs.value("CTX_GRAVITY_CAP", qc.principal.tenant_id))


def _lift(hit: Hit, factor: float, cap: float) -> float:
    """Multiply within what is left of the cap; return the factor actually applied."""
    used = float(hit.stages.get("gravity_multiplier", 1.0))
    allowed = max(1.0, min(factor, cap / used))
    hit.stages["gravity_multiplier"] = used * allowed
    hit.score = hit.score * allowed
    return allowed


def _resort(hits: list[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda h: h.score, reverse=True)


class CyclicGravity(Stage):
    name = "gravity_cyclic"

    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        intent = qc.temporal
        if intent is None or not intent.has_intent or not intent.targets:
            qc.explain[self.name] = "skipped: no cyclic intent"
            return hits
        lifted, cap = {}, _cap(qc)
        for hit in hits:
            assert hit.block is not None
            moments = [timezone.localtime(m) for m in block_dates(hit.block)]
            factor = _lift(hit, cyclic_factor(intent, best_cyclic(intent, moments)), cap)
            if factor > 1.0:
                lifted[hit.id] = round(factor, 3)
        qc.explain[self.name] = {"targets": dict(intent.targets), "lifted": lifted}
        return _resort(hits)


class LinearGravity(Stage):
    name = "gravity_linear"

    def run(self, qc: QueryContext, hits: list[Hit]) -> list[Hit]:
        intent = qc.temporal
        weight = intent.weights.get("linear", 0.0) if intent is not None else 0.0
        if intent is None or weight <= 0 or not intent.ranges:
            qc.explain[self.name] = "skipped: no linear intent"
            return hits
        today = timezone.localtime(qc.now).date()
        lifted, cap = {}, _cap(qc)
        for hit in hits:
            assert hit.block is not None
            days = [timezone.localtime(m).date() for m in block_dates(hit.block)]
            factor = _lift(hit, 1.0 + weight * best_linear(intent, days, today), cap)
            if factor > 1.0:
                lifted[hit.id] = round(factor, 3)
        ranges = [[r.start.isoformat(), r.end.isoformat()] for r in intent.ranges]
        qc.explain[self.name] = {"ranges": ranges, "weight": weight, "lifted": lifted}
        return _resort(hits)
