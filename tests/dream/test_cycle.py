"""Dream cycles end to end on the database: links, replace semantics, pinning, supersession
and restore, quality, back-off, failures, the mode, claims and their TTL."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from ctx.models import Block
from dream import claims, services
from dream.cycle import run_cycle, run_cycles
from dream.models import DreamState, DreamTenant, Link
from tests.conftest import Cast
from tests.dream.conftest import T0, cos_mix, days, embed_as, put, settings_ctx, unit
from tests.fake_http import FakeServer, Reply, dead_url

pytestmark = pytest.mark.django_db


def links() -> set[tuple[str, str, str]]:
    rows = Link.objects.select_related("source", "target")
    return {(x.source.title, x.target.title, x.link_class) for x in rows}


def state(block: Block) -> DreamState:
    return DreamState.objects.get(block=block)


def at(value: datetime | None) -> datetime:
    assert value is not None
    return value


def make_due(*blocks: Block) -> None:
    DreamState.objects.filter(block__in=blocks).update(next_at=timezone.now() - timedelta(1))


def deploy_pair() -> tuple[Block, Block]:
    old = put("acme:main", "Deploy policy", "We deploy on Tuesdays.", cos_mix(1.0), when=T0)
    new = put(
        "acme:main",
        "Deploy policy 2025",
        "We now deploy on Thursdays instead.",
        cos_mix(0.97),
        when=T0 + days(30),
    )
    return old, new


def test_it_links_related_blocks_and_cools_them_down(cast: Cast) -> None:
    a = put("acme:main", "Green tea", "Sencha and matcha.", cos_mix(1.0))
    put("acme:main", "Tea kettles", "Kettles for tea.", cos_mix(0.9))
    lone = put("acme:main", "Tax forms", "Form 1040.", cos_mix(0.0, 7, 8))
    summary = run_cycles(worker="w", max_seconds=30)
    assert summary.cycles == 3 and summary.outcomes["changed"] >= 1
    assert _undirected() == {("Green tea", "Tea kettles", "topical")}
    link = Link.objects.get()
    # cosine 0.9: raw 0.7 + (0.9 - 0.5) capped at 0.97, calibrated x 0.95
    assert (link.origin, link.pinned, link.confidence) == ("dream", False, 0.9215)
    assert link.raw_confidence == 0.97 and link.evidence["typer"] == "rules"
    hours = (at(state(a).next_at) - at(state(a).last_cycle_at)) / timedelta(hours=1)
    assert state(a).level == 0 and round(hours, 3) == 12.0
    assert state(lone).level == 7 and state(lone).last_outcome == "inert"  # nothing related
    assert run_cycles(worker="w").cycles == 0  # everything cools down


def test_it_turns_a_confidently_superseded_block_into_a_snapshot(cast: Cast) -> None:
    old, new = deploy_pair()
    run_cycles(worker="w")
    assert links() == {("Deploy policy 2025", "Deploy policy", "supersedes")}
    old.refresh_from_db()
    assert (old.lifecycle, old.superseded_by_id) == ("snapshot", new.pk)
    assert old.quality == 0.25


def test_it_restores_the_target_when_its_supersedes_link_goes_away(cast: Cast) -> None:
    old, new = deploy_pair()
    put("acme:main", "Release train", "Trains leave weekly.", cos_mix(0.5, 0, 2))
    run_cycles(worker="w")
    # the new text drifts away from the old policy but stays topical to the release train
    embed_as(new, unit(a0=0.45, a2=0.6, a3=0.66))
    make_due(new)
    run_cycles(worker="w")
    assert ("Deploy policy 2025", "Deploy policy", "supersedes") not in links()
    assert ("Deploy policy 2025", "Release train", "topical") in _undirected()
    old.refresh_from_db()
    assert (old.lifecycle, old.superseded_by_id, old.quality) == ("knowledge", None, 0.5)


def test_it_replaces_only_when_the_cycle_found_something(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    b = put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    c = put("acme:main", "Charlie", "charlie text", cos_mix(0.85, 0, 3))
    run_cycles(worker="w")
    assert len(links()) == 3
    embed_as(b, cos_mix(0.0, 9, 10))  # bravo becomes unrelated: a's next cycle drops a-b
    make_due(a)
    run_cycles(worker="w", max_cycles=1)
    assert ("Alpha", "Charlie", "topical") in _undirected()
    assert not any("Bravo" in pair[:2] and "Alpha" in pair[:2] for pair in _undirected())
    embed_as(c, cos_mix(0.0, 11, 12))  # now nothing is related to alpha any more
    before = set(Link.objects.values_list("id", "updated_at"))
    make_due(a)
    DreamState.objects.exclude(block=a).update(next_at=timezone.now() + timedelta(1))
    run_cycles(worker="w")
    assert set(Link.objects.values_list("id", "updated_at")) == before  # kept, not wiped


def _undirected() -> set[tuple[str, str, str]]:
    return {(*sorted(x[:2]), x[2]) for x in links()}  # type: ignore[misc]


def test_it_never_removes_or_changes_a_pinned_link(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    b = put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    put("acme:main", "Charlie", "charlie text", cos_mix(0.85, 0, 3))
    run_cycles(worker="w")
    pinned = Link.objects.get(source__in=[a, b], target__in=[a, b])
    Link.objects.filter(pk=pinned.pk).update(pinned=True, confidence=0.99)
    embed_as(b, cos_mix(0.0, 9, 10))
    make_due(a, b)
    run_cycles(worker="w")
    pinned.refresh_from_db()
    assert (pinned.pinned, pinned.confidence) == (True, 0.99)


def test_it_promotes_a_well_supported_block_to_canonical(cast: Cast) -> None:
    hub = put("acme:main", "Kubernetes", "Our k8s setup.", cos_mix(1.0))
    for i, cos in enumerate((0.95, 0.93, 0.91)):
        put("acme:main", f"K8s note {i}", f"note {i}", unit(a0=cos, **{f"a{20 + i}": 0.3}))
    run_cycles(worker="w")
    hub.refresh_from_db()
    assert hub.lifecycle == "canonical" and hub.quality == 0.74


def test_it_retries_a_transient_failure_later_without_counting_it(
    cast: Cast, settings: Any
) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    settings_ctx(
        settings, CTX_LLM_PROVIDER="openai", CTX_LLM_MODEL="m", CTX_LLM_BASE_URL=dead_url()
    )
    started = timezone.now()
    summary = run_cycles(worker="w")
    assert summary.outcomes == {"retry": 2} and Link.objects.count() == 0
    st = state(a)
    assert (st.level, st.failures, st.cycles, st.last_cycle_at) == (0, 1, 0, None)
    wait = (at(st.next_at) - started) / timedelta(minutes=1)
    assert 4.9 < wait < 5.5 and st.claim_token is None


def test_it_types_with_rules_when_the_llm_answers_garbage(cast: Cast, settings: Any) -> None:
    put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    garbage = Reply(json={"choices": [{"message": {"content": "no json here"}}], "model": "m"})
    with FakeServer(lambda s, n: garbage) as server:
        settings_ctx(
            settings, CTX_LLM_PROVIDER="openai", CTX_LLM_MODEL="m", CTX_LLM_BASE_URL=server.url
        )
        summary = run_cycles(worker="w")
    assert summary.outcomes["changed"] == 1 and len(server.seen) == 2
    assert Link.objects.get().evidence["typer"] == "rules"


def test_it_claims_nothing_while_the_mode_is_off(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    services.mode_set(mode="off", by="test")
    summary = run_cycles(worker="w")
    assert (summary.cycles, summary.mode) == (0, "off")
    services.mode_set(mode="on", by="test")
    assert run_cycles(worker="w").cycles == 1


def test_it_stops_a_cycle_in_flight_when_the_mode_goes_off(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    mode, claim = claims.claim_next(
        worker="w", now=timezone.now(), ttl=timedelta(minutes=5), default_mode="on"
    )
    assert mode == "on" and claim is not None
    services.mode_set(mode="off", by="test")
    assert run_cycle(claim, mode=mode).outcome == "stopped"
    st = DreamState.objects.get(block_id=claim.source.id)
    assert Link.objects.count() == 0 and st.claim_token is None and st.cycles == 0
    assert at(st.next_at) <= timezone.now()  # still due: it was handed back untouched
    assert a.pk is not None


def test_it_pauses_before_the_model_step_when_throttled(cast: Cast, settings: Any) -> None:
    put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    settings_ctx(settings, CTX_DREAM_THROTTLE_SECONDS=0.3)
    services.mode_set(mode="throttled", by="test")
    started = time.monotonic()
    assert run_cycles(worker="w").cycles == 2
    assert time.monotonic() - started >= 0.6


def test_it_frees_a_claim_after_its_ttl_and_fences_the_late_worker(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    DreamState.objects.filter(block__title="Bravo").update(next_at=None)
    now, ttl = timezone.now(), timedelta(seconds=30)
    _, slow = claims.claim_next(worker="slow", now=now, ttl=ttl, default_mode="on")
    assert slow is not None
    assert (
        claims.claim_next(
            worker="fast", now=now + timedelta(seconds=10), ttl=ttl, default_mode="on"
        )[1]
        is None
    )
    _, fast = claims.claim_next(
        worker="fast", now=now + timedelta(seconds=31), ttl=ttl, default_mode="on"
    )
    assert fast is not None and fast.source.id == slow.source.id
    assert run_cycle(slow, mode="on").outcome == "lost" and Link.objects.count() == 0
    assert run_cycle(fast, mode="on").outcome == "changed" and Link.objects.count() == 1


def test_it_serves_tenants_round_robin(cast: Cast) -> None:
    for i in range(3):
        put("acme:main", f"Acme {i}", "acme", unit(**{f"a{i}": 1.0}))
        put("globex:main", f"Globex {i}", "globex", unit(**{f"a{i}": 1.0}))
    served: list[int] = []
    for turn in range(6):
        # A second ahead of the wall clock: the blocks were made due "now", and a clock that
        # steps back a little between two readings must not make them look not yet due (the
        # released ones wait hours, so they stay out either way).
        now = timezone.now() + timedelta(seconds=1)
        _, claim = claims.claim_next(
            worker="w", now=now, ttl=timedelta(minutes=5), default_mode="on"
        )
        assert claim is not None, (turn, served, _dream_rows())
        served.append(claim.source.tenant_id)
        run_cycle(claim, mode="on")
    assert served[0::2] == [served[0]] * 3 and served[1::2] == [served[1]] * 3
    assert served[0] != served[1]


def _dream_rows() -> dict[str, Any]:
    """What the claim reads, for a failure's message."""
    return {
        "tenants": list(DreamTenant.objects.values_list("tenant_id", "last_cycle_at")),
        "states": list(
            DreamState.objects.values_list("block__title", "next_at", "claim_until", "last_outcome")
        ),
        "now": timezone.now(),
    }


def test_it_makes_the_neighbours_of_a_new_block_due_again(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    far = put("acme:main", "Far away", "unrelated", cos_mix(0.0, 30, 31))
    run_cycles(worker="w")
    assert at(state(a).next_at) > timezone.now() and at(state(far).next_at) > timezone.now()
    put("acme:main", "Alpha two", "alpha again", cos_mix(0.95))
    assert at(state(a).next_at) <= timezone.now()
    run_cycles(worker="w")
    assert ("Alpha", "Alpha two", "topical") in _undirected()


def test_it_links_only_within_one_scope_and_skips_archived_and_unembedded(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:team", "Alpha team", "alpha text", cos_mix(0.99))
    gone = put("acme:main", "Gone", "gone", cos_mix(0.98))
    Block.objects.filter(pk=gone.pk).update(archived=True)
    put("acme:main", "Pending", "not embedded yet", [], embed=False)
    summary = run_cycles(worker="w")
    assert summary.cycles == 2 and Link.objects.count() == 0


def test_it_parks_a_changed_block_until_it_is_embedded_again(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Alpha", "alpha text, edited", cos_mix(1.0), embed=False)
    assert state(a).next_at is None


def test_it_discards_a_running_cycle_when_the_text_changes_under_it(cast: Cast) -> None:
    a = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    DreamState.objects.filter(block__title="Bravo").update(next_at=None)
    _, claim = claims.claim_next(
        worker="w", now=timezone.now(), ttl=timedelta(minutes=5), default_mode="on"
    )
    assert claim is not None and claim.source.id == str(a.pk)
    embed_as(a, cos_mix(0.5, 0, 5))  # new text, new embedding while the cycle runs
    assert run_cycle(claim, mode="on").outcome == "lost" and Link.objects.count() == 0
    assert at(state(a).next_at) <= timezone.now()  # due again, for the new text


def test_it_serves_a_tenant_behind_five_whose_due_blocks_cannot_be_claimed(cast: Cast) -> None:
    # Five tenants never served yet, each with a due block that lost its embedding (a model
    # switch): they sort first, yet have nothing to claim; acme must still get its turn.
    from ctx.services import tenant_create

    for i in range(5):
        tenant_create(name=f"stale{i}", scopes=["main"])
        block = put(f"stale{i}:main", f"Stale {i}", "stale", unit(a0=1.0))
        Block.objects.filter(pk=block.pk).update(embedding=None)
    DreamTenant.objects.filter(tenant__name__startswith="stale").update(last_cycle_at=None)
    put("acme:main", "Acme", "acme", unit(a1=1.0))
    DreamTenant.objects.filter(tenant=cast.acme).update(last_cycle_at=timezone.now())
    _, claim = claims.claim_next(
        worker="w", now=timezone.now(), ttl=timedelta(minutes=5), default_mode="on"
    )
    assert claim is not None and claim.source.title == "Acme"
