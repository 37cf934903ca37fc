"""The block pages through Django's test client (as the table owner: the code's own filters
are what is tested here; the browser tests run under row-level security)."""

from __future__ import annotations

import pytest

from ctx.admin.blocks import MASKED
from ctx.models import Block, Scope
from dream.models import Link
from tests.admin.conftest import MISSING, Keys, block, sign_in
from tests.conftest import Api

pytestmark = pytest.mark.django_db
AWS = "AKIAIOSFODNN7EXAMPLE"
LIST = "/admin/ctx/block/"


def _change(pk: object) -> str:
    return f"/admin/ctx/block/{pk}/change/"


def _form(b: Block, **changes: object) -> dict[str, object]:
    """The change form as the browser posts it, with some fields changed."""
    data: dict[str, object] = {
        "category": b.category,
        "title": b.title,
        "content": b.content,
        "tags": ",".join(b.tags),
        "type": b.type,
        "sensitivity": b.sensitivity,
        "valid_from": "",
        "valid_to": "",
        "metadata": "{}",
        "_save": "Save",
    }
    return {**data, **changes}


def test_it_masks_credentials_level_content_in_the_list(keys: Keys) -> None:
    block(keys.owner_key, "AWS", f"The deploy user's key is {AWS}.")
    block(keys.owner_key, "Lunch", "The ramen place on 5th street.")
    page = sign_in(keys.owner).get(LIST).content.decode()
    assert Block.objects.get(title="AWS").sensitivity == "credentials"  # the detector raised it
    assert AWS not in page and MASKED in page
    assert "The ramen place on 5th street." in page


def test_it_edits_through_the_operation_so_the_old_text_is_no_noop(keys: Keys) -> None:
    b = block(keys.owner_key, "Deploy policy", "Deploys happen on Tuesdays.")
    client = sign_in(keys.owner)
    resp = client.post(_change(b.pk), _form(b, content=f"Deploy with {AWS} on Thursdays."))
    assert resp.status_code == 302, resp.content.decode()[:2000]
    edited = Block.objects.get(pk=b.pk)
    assert edited.sensitivity == "credentials" and edited.embedding is None
    # The saved model carries the new hash: storing the old text again changes the block.
    status, body = Api(keys.owner).post(
        "/api/store", {"category": "notes", "title": "Deploy policy", "content": b.content}
    )
    assert (status, body["action"]) == (200, "updated")


def test_it_shows_the_operations_refusal_on_the_form(keys: Keys) -> None:
    block(keys.owner_key, "Taken", "One block.")
    b = block(keys.owner_key, "Other", "Another block.")
    resp = sign_in(keys.owner).post(_change(b.pk), _form(b, title="Taken"))
    assert resp.status_code == 200
    assert "Another block in this scope has that category and title." in resp.content.decode()
    assert Block.objects.get(pk=b.pk).title == "Other"


def test_it_adds_a_block_only_into_a_writable_scope(keys: Keys) -> None:
    client = sign_in(keys.owner)
    team = Scope.objects.get(name="acme:team")
    fields = {
        "category": "infra",
        "title": "Docker",
        "content": "compose v2",
        "tags": "ops",
        "type": "knowledge",
        "sensitivity": "internal",
        "metadata": "{}",
    }
    resp = client.post("/admin/ctx/block/add/", {**fields, "scope": team.pk})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    added = Block.objects.get(title="Docker")
    assert (added.scope_id, added.tags, added.content_hash != "") == (team.pk, ["ops"], True)
    foreign = Scope.objects.get(name="globex:main")
    resp = client.post("/admin/ctx/block/add/", {**fields, "title": "X", "scope": foreign.pk})
    assert resp.status_code == 200 and not Block.objects.filter(title="X").exists()


def test_it_filters_and_searches_the_operators_blocks(keys: Keys) -> None:
    block(keys.owner_key, "Car service", "The mechanic changed the oil.", category="car")
    block(keys.owner_key, "Ramen", "Best broth in town.", category="food", scope="acme:team")
    block(keys.boss_key, "Globex car", "Fleet maintenance for the oil change.", category="car")
    client = sign_in(keys.owner)

    def titles(query: str) -> list[str]:
        return sorted(r.title for r in client.get(LIST + query).context["cl"].result_list)

    team = Scope.objects.get(name="acme:team").pk
    assert titles("") == ["Car service", "Ramen"]
    assert titles("?category=car") == ["Car service"]
    assert titles(f"?scope={team}") == ["Ramen"]
    assert titles("?q=oil") == ["Car service"]  # English full text, not the foreign match
    assert titles("?q=Ramen") == ["Ramen"]
    categories = client.get(LIST).context["cl"].filter_specs[1].lookup_choices
    assert [c for c, _ in categories] == ["car", "food"]  # not another tenant's
    in_team = client.get(f"{LIST}?scope={team}").context["cl"].filter_specs[1].lookup_choices
    assert [c for c, _ in in_team] == ["food"]


def test_its_search_finds_a_name_written_without_its_accents(keys: Keys) -> None:
    block(keys.owner_key, "Guests", "Björn Müller arrives on Friday.")
    block(keys.owner_key, "Lunch", "Pasta with tomatoes.")
    rows = sign_in(keys.owner).get(LIST + "?q=Bjorn").context["cl"].result_list
    assert [r.title for r in rows] == ["Guests"]


def test_it_shows_a_blocks_links_and_supersession_chain(keys: Keys) -> None:
    old = block(keys.owner_key, "Office v1", "The office is on Main Street.")
    new = block(keys.owner_key, "Office v2", "The office moved to Elm Street.")
    client = sign_in(keys.owner)
    resp = client.post(
        "/admin/dream/link/add/",
        {"source": new.pk, "target": old.pk, "link_class": "supersedes", "confidence": "0.9"},
    )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    page = client.get(_change(old.pk)).content.decode()
    assert "notes/Office v2" in page and "supersedes" in page
    assert "newer" in client.get(_change(old.pk)).content.decode()
    assert Link.objects.get().pinned


def test_it_archives_and_restores_through_list_actions(keys: Keys) -> None:
    b = block(keys.owner_key, "Temp", "Short-lived note.")
    client = sign_in(keys.owner)
    client.post(LIST, {"action": "archive_selected", "_selected_action": [str(b.pk)]})
    assert Block.objects.get(pk=b.pk).archived
    client.post(LIST, {"action": "restore_selected", "_selected_action": [str(b.pk)]})
    assert not Block.objects.get(pk=b.pk).archived


def test_it_answers_a_foreign_block_like_a_missing_one(keys: Keys) -> None:
    foreign = block(keys.boss_key, "Globex plan", "Secret plan.")
    client = sign_in(keys.owner)
    resp = client.get(_change(foreign.pk), follow=True)
    assert MISSING in resp.content.decode() and "Secret plan" not in resp.content.decode()
    resp = client.post(f"/admin/ctx/block/{foreign.pk}/archive/")
    assert not Block.objects.get(pk=foreign.pk).archived
    resp = client.post(LIST, {"action": "archive_selected", "_selected_action": [str(foreign.pk)]})
    assert not Block.objects.get(pk=foreign.pk).archived
