"""The periodic feed (dream.feed): bookkeeping and the fan-out of cycle tasks; system checks."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import run_checks

from ctx.models import Block
from dream import scheduler, services
from dream.models import DreamState
from tests.conftest import Cast
from tests.dream.conftest import cos_mix, put, settings_ctx, unit

pytestmark = pytest.mark.django_db


def test_it_schedules_blocks_embedded_before_dream_knew_them(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    DreamState.objects.all().delete()
    plan = scheduler.feed()
    assert plan["added"] == 1 and DreamState.objects.get().block_id == a.pk
    assert (plan["due"], plan["tasks"], plan["mode"]) == (1, 1, "on")


def test_it_parks_archived_blocks_and_fans_out_in_batches(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_DREAM_BATCH=2, CTX_DREAM_FANOUT=2)
    for i in range(5):
        put("acme:main", f"N{i}", f"n{i}", unit(**{f"a{i}": 1.0}))
    Block.objects.filter(title="N0").update(archived=True)
    plan = scheduler.feed()
    assert (plan["parked"], plan["due"], plan["tasks"]) == (1, 4, 2)
    assert DreamState.objects.get(block__title="N0").next_at is None


def test_it_fans_out_nothing_while_off(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    services.mode_set(mode="off", by="test")
    assert scheduler.feed()["tasks"] == 0


def test_it_checks_the_guard_thresholds_and_the_task_budget(settings: Any) -> None:
    settings_ctx(settings, CTX_GUARD_REVIEW_AT=0.99, CTX_GUARD_ARCHIVE_AT=0.98)
    assert "ctx.E030" in {e.id for e in run_checks()}
    settings_ctx(settings, CTX_GUARD_REVIEW_AT=0.92, CTX_DREAM_TASK_SECONDS=600.0)
    ids = {e.id for e in run_checks()}
    assert "ctx.E031" in ids and "ctx.E030" not in ids
