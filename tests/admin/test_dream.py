"""Links, the review queue, guard flags and the dream switch in the admin (test client)."""

from __future__ import annotations

import pytest
from django.test import Client

from ctx.models import Block
from dream.models import DreamMode, GuardFlag, Link
from tests.admin.conftest import MISSING, Keys, block, sign_in

pytestmark = pytest.mark.django_db
ADD = "/admin/dream/link/add/"


def _add(client: Client, source: Block, target: Block, link_class: str = "factual") -> str:
    data = {"source": source.pk, "target": target.pk, "link_class": link_class, "confidence": "0.8"}
    resp = client.post(ADD, data)
    return "" if resp.status_code == 302 else resp.content.decode()


def test_it_links_blocks_only_within_one_scope(keys: Keys) -> None:
    main = block(keys.owner_key, "A", "First.")
    team = block(keys.owner_key, "B", "Second.", scope="acme:team")
    foreign = block(keys.boss_key, "G", "Globex.")
    client = sign_in(keys.owner)
    assert "Both ends of a link must be in the same scope." in _add(client, main, team)
    assert "Block not found." in _add(client, main, foreign)  # like a missing block
    assert not Link.objects.exists()
    other = block(keys.owner_key, "C", "Third.")
    assert _add(client, main, other) == ""
    link = Link.objects.get()
    assert (link.origin, link.pinned, link.scope_id) == ("manual", True, main.scope_id)


def test_it_restores_the_target_when_a_supersedes_link_is_deleted(keys: Keys) -> None:
    old = block(keys.owner_key, "Office v1", "Main Street.")
    new = block(keys.owner_key, "Office v2", "Elm Street.")
    client = sign_in(keys.owner)
    assert _add(client, new, old, "supersedes") == ""
    superseded = Block.objects.get(pk=old.pk)
    assert (superseded.lifecycle, superseded.superseded_by_id) == ("snapshot", new.pk)
    link = Link.objects.get()
    resp = client.post(f"/admin/dream/link/{link.pk}/delete/", {"post": "yes"})
    assert resp.status_code == 302 and not Link.objects.exists()
    restored = Block.objects.get(pk=old.pk)
    assert (restored.lifecycle, restored.superseded_by_id) == ("knowledge", None)


def test_it_confirms_a_dream_link_under_review(keys: Keys) -> None:
    a = block(keys.owner_key, "A", "First.")
    b = block(keys.owner_key, "B", "Second.")
    link = Link.objects.create(
        source=a,
        target=b,
        link_class="causal",
        scope=a.scope,
        confidence=0.3,
        raw_confidence=0.3,
        origin="dream",
    )
    client = sign_in(keys.owner)
    listed = client.get("/admin/dream/link/?review=wanted").context["cl"].result_list
    assert [x.pk for x in listed] == [link.pk]
    client.post(f"/admin/dream/link/{link.pk}/confirm/")
    assert Link.objects.get().pinned
    assert list(client.get("/admin/dream/link/?review=wanted").context["cl"].result_list) == []


def _flag(keys: Keys) -> GuardFlag:
    twin = block(keys.owner_key, "Deploy", "Deploys happen on Tuesdays.")
    copy = block(keys.owner_key, "Deploy copy", "Deploys happen on Tuesdays!")
    return GuardFlag.objects.create(
        block=copy, twin=twin, scope=copy.scope, similarity=0.97, kind="near_copy"
    )


def test_it_resolves_guard_flags_by_archiving_or_keeping(keys: Keys) -> None:
    flag = _flag(keys)
    client = sign_in(keys.owner)
    client.post(f"/admin/dream/guardflag/{flag.pk}/archive/")
    flag.refresh_from_db()
    assert flag.status == "archived" and Block.objects.get(pk=flag.block_id).archived
    assert flag.resolved_by == "owner"


def test_it_does_not_resolve_another_tenants_flag(keys: Keys) -> None:
    flag = _flag(keys)
    client = sign_in(keys.boss)
    resp = client.post(f"/admin/dream/guardflag/{flag.pk}/keep/", follow=True)
    assert MISSING in resp.content.decode()
    assert GuardFlag.objects.get().status == "open"
    assert list(client.get("/admin/dream/guardflag/").context["cl"].result_list) == []


def test_it_lets_only_server_admins_switch_dream_mode(keys: Keys) -> None:
    assert sign_in(keys.owner).get("/admin/dream/dreammode/").status_code == 403
    resp = sign_in(keys.root).post("/admin/dream/dreammode/add/", {"mode": "throttled"})
    assert resp.status_code == 302 and DreamMode.objects.get().mode == "throttled"
