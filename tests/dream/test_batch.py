"""A claimed batch writes exactly what the same cycles one after the other would write."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from ctx.models import Block
from dream import claims, services
from dream.cycle import run_batch, run_cycles
from dream.models import DreamState, Link
from dream.services import LinkInput, link_upsert
from tests.conftest import Cast
from tests.dream.conftest import T0, cos_mix, days, put, settings_ctx, unit

pytestmark = pytest.mark.django_db


def corpus() -> list[Block]:
    blocks = [
        put("acme:main", "Deploy policy", "We deploy on Tuesdays.", cos_mix(1.0), when=T0),
        put(
            "acme:main",
            "Deploy policy 2025",
            "We now deploy on Thursdays instead.",
            cos_mix(0.97),
            when=T0 + days(30),
        ),
        put("acme:main", "Release train", "Trains leave weekly.", cos_mix(0.8, 0, 2)),
        put("acme:main", "Rollback guide", "How to roll back.", cos_mix(0.7, 0, 3)),
    ]
    for i in range(8):  # two clusters of four
        vec = unit(**{f"a{10 + i % 2}": 1.0, f"a{20 + i}": 0.3})
        blocks.append(put("acme:main", f"Cluster note {i}", f"note {i}", vec))
    blocks.append(put("acme:main", "Tax forms", "Form 1040.", cos_mix(0.0, 7, 8)))
    return blocks


def fresh_start(blocks: list[Block], pinned: tuple[Block, Block]) -> None:
    """No dream links, every block plain knowledge and due, in a fixed order."""
    Link.objects.all().delete()
    Block.objects.update(lifecycle="knowledge", superseded_by=None, quality=0.5)
    now = timezone.now()
    for i, block in enumerate(blocks):
        DreamState.objects.filter(block=block).update(
            next_at=now - timedelta(minutes=100 - i), level=0, cycles=0, last_outcome=""
        )
    link_upsert(LinkInput(str(pinned[0].pk), str(pinned[1].pk), "causal", 0.99, pinned=True))


def outcome() -> tuple[Any, ...]:
    links = sorted(
        Link.objects.values_list(
            "source__title", "target__title", "link_class", "confidence", "pinned", "origin"
        )
    )
    blocks = sorted(Block.objects.values_list("title", "lifecycle", "quality"))
    states = sorted(DreamState.objects.values_list("block__title", "level", "last_outcome"))
    return links, blocks, states


def test_it_writes_a_batch_as_its_cycles_one_after_the_other(cast: Cast, settings: Any) -> None:
    blocks = corpus()
    pinned = (blocks[2], blocks[3])
    results = {}
    for size in (1, 16):
        settings_ctx(settings, CTX_DREAM_CLAIM_SIZE=size)
        fresh_start(blocks, pinned)
        summary = run_cycles(worker=f"w{size}")
        assert summary.cycles == len(blocks)
        claimed_at = set(DreamState.objects.values_list("claimed_at", flat=True))
        assert len(claimed_at) == (len(blocks) if size == 1 else 1)  # one claim for all
        results[size] = outcome()
    assert results[16] == results[1]
    links, blocks_after, _ = results[16]
    assert ("Deploy policy 2025", "Deploy policy", "supersedes") in {x[:3] for x in links}
    assert ("Deploy policy", "snapshot") in {b[:2] for b in blocks_after}
    assert ("Release train", "Rollback guide", "causal", 0.99, True, "manual") in links
    assert len(links) > 8


def claim_all(size: int) -> list[claims.Claim]:
    _, batch = claims.claim_batch(
        worker="w", now=timezone.now(), ttl=timedelta(minutes=5), default_mode="on", limit=size
    )
    return batch


def test_it_hands_a_whole_batch_back_when_the_mode_goes_off(cast: Cast) -> None:
    corpus()
    batch = claim_all(16)
    assert len(batch) == 13
    services.mode_set(mode="off", by="test")
    assert {r.outcome for r in run_batch(batch, mode="on")} == {"stopped"}
    assert Link.objects.count() == 0
    assert not DreamState.objects.filter(claim_token__isnull=False).exists()
    assert not DreamState.objects.filter(next_at__gt=timezone.now()).exists()  # all still due


def test_it_writes_the_blocks_a_batch_still_owns_and_nothing_for_a_lost_one(cast: Cast) -> None:
    old, new = corpus()[:2]
    batch = claim_all(16)
    DreamState.objects.filter(block=new).update(claim_token=uuid.uuid4())  # another worker's
    results = {r.block_id: r.outcome for r in run_batch(batch, mode="on")}
    assert results.pop(str(new.pk)) == "lost"
    assert set(results.values()) <= {"changed", "unchanged", "inert"}
    assert not Link.objects.filter(found_by=new).exists()
    assert Link.objects.filter(found_by=old).exists()  # its neighbours were written
    assert DreamState.objects.get(block=new).cycles == 0
    assert DreamState.objects.exclude(block=new).filter(cycles=1).count() == 12
