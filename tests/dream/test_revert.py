"""POST /api/dream/revert: every cycle that changed a block's link set keeps the set it
replaced; a revert puts the newest back, leaves pinned and manual links alone, and is
recorded (who, when)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from dream import links as dream_links
from dream.cycle import run_cycles
from dream.models import DreamState, Link, LinkSet
from tests.conftest import Cast
from tests.dream.conftest import cos_mix, put

pytestmark = pytest.mark.django_db

MISSING = "00000000-0000-4000-8000-000000000000"


def _dream_links() -> set[tuple[str, str]]:
    return {(lk.source.title, lk.target.title) for lk in Link.objects.filter(origin="dream")}


def test_a_revert_puts_back_the_link_set_a_cycle_replaced(cast: Cast) -> None:
    alpha = put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo", cos_mix(0.9))
    run_cycles(worker="w")
    assert len(_dream_links()) == 1  # the cycle linked the two
    kept = LinkSet.objects.filter(block=alpha)
    assert [k.links for k in kept] == [[]]  # what alpha had before: nothing

    status, body = cast.owner.post("/api/dream/revert", {"block": str(alpha.pk)})
    assert status == 200, body
    assert body["action"] == "reverted" and body["links"] == 0 and body["removed"] == 1
    assert _dream_links() == set()
    state = DreamState.objects.get(block=alpha)
    assert state.next_at is not None and state.next_at.isoformat() == body["rests_until"]
    done = LinkSet.objects.get(block=alpha)
    assert done.reverted_at is not None and done.reverted_by == cast.owner_key.prefix

    # Nothing left to revert: said plainly, nothing changed.
    status, body = cast.owner.post("/api/dream/revert", {"block": str(alpha.pk)})
    assert status == 404 and "No link set" in body["error"]["message"]


def test_a_revert_restores_links_a_later_cycle_removed_and_keeps_pinned_ones(
    cast: Cast,
) -> None:
    alpha = put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    bravo = put("acme:main", "Bravo", "bravo", cos_mix(0.9))
    run_cycles(worker="w")
    before = {(lk.source_id, lk.target_id, lk.link_class) for lk in Link.objects.all()}
    assert len(before) == 1
    # A later change replaced alpha's set: the link went (as a cycle removing it would),
    # after the set was kept; and someone pinned a link of their own meanwhile.
    dream_links.keep_sets([str(alpha.pk)], now=timezone.now())
    Link.objects.filter(origin="dream").delete()
    charlie = put("acme:main", "Charlie", "charlie", cos_mix(0.2))
    Link.objects.create(
        source=alpha,
        target=charlie,
        scope=alpha.scope,
        link_class="causal",
        origin="manual",
        confidence=1.0,
        raw_confidence=1.0,
        pinned=True,
    )
    status, body = cast.owner.post("/api/dream/revert", {"block": str(alpha.pk)})
    assert status == 200 and body["links"] == 1, body
    after = {
        (lk.source_id, lk.target_id, lk.link_class) for lk in Link.objects.filter(origin="dream")
    }
    assert after == before
    assert Link.objects.filter(pinned=True, target=charlie).exists()  # a person's link stays
    assert bravo.pk in {lk.target_id for lk in Link.objects.filter(origin="dream")} | {
        lk.source_id for lk in Link.objects.filter(origin="dream")
    }


def test_a_foreign_block_answers_like_a_missing_one_and_readers_may_not_revert(
    cast: Cast,
) -> None:
    alpha = put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo", cos_mix(0.9))
    run_cycles(worker="w")
    foreign = cast.outsider.post("/api/dream/revert", {"block": str(alpha.pk)})
    missing = cast.outsider.post("/api/dream/revert", {"block": MISSING})
    assert foreign == missing and foreign[0] == 404
    status, body = cast.reader.post("/api/dream/revert", {"block": str(alpha.pk)})
    assert status == 403 and body["error"]["code"] == "forbidden"
    assert len(_dream_links()) == 1  # neither changed anything
    status, body = cast.owner.post("/api/dream/revert", {})
    assert status == 400 and body["error"]["details"]["field"] == "block"
