"""A tenant's staff in the admin, in Chromium, against the live server whose web process runs
as the runtime role (row-level security on): another tenant's blocks and keys are not in the
lists, not in search, and a change page by id answers exactly like a missing one."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Page

from ctx.models import ApiKey
from tests.admin.conftest import NOT_THERE, Keys, block, browser_sign_in, rows, shot
from tests.support.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def _missing_message(page: Page, live: LiveServer, path: str, object_id: object) -> str:
    """The warning the admin shows for `path` (a change page), with the id blanked out."""
    page.goto(live.url + path)
    assert page.url == live.url + "/admin/"  # sent back to the index
    return page.locator(".messagelist .warning").inner_text().replace(str(object_id), "<id>")


def test_it_hides_another_tenants_blocks_in_list_search_and_by_id(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    block(keys.owner_key, "Acme deploys", "Acme deploys on Tuesdays.")
    foreign = block(keys.boss_key, "Globex deploys", "Globex deploys on Fridays.")
    browser_sign_in(page, live, keys.owner)

    page.goto(live.url + "/admin/ctx/block/")
    assert rows(page) == ["Acme deploys"]
    assert "globex" not in page.locator("#changelist-filter").inner_text().lower()
    shot(page, "isolation-block-list")

    page.goto(live.url + "/admin/ctx/block/?q=deploys")
    assert rows(page) == ["Acme deploys"]
    page.goto(live.url + f"/admin/ctx/block/?q={foreign.pk}")
    assert rows(page) == []
    page.goto(live.url + f"/admin/ctx/block/?scope={foreign.scope_id}")
    assert rows(page) == []
    shot(page, "isolation-block-search")

    unknown = uuid.uuid4()
    foreign_page = _missing_message(
        page, live, f"/admin/ctx/block/{foreign.pk}/change/", foreign.pk
    )
    shot(page, "isolation-block-by-id")
    missing_page = _missing_message(page, live, f"/admin/ctx/block/{unknown}/change/", unknown)
    assert foreign_page == missing_page == NOT_THERE.format(model="Block")


def test_it_hides_another_tenants_keys_in_list_search_and_by_id(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + "/admin/ctx/apikey/")
    assert sorted(rows(page)) == ["member", "owner"]
    shot(page, "isolation-key-list")
    page.goto(live.url + f"/admin/ctx/apikey/?q={keys.boss_key.prefix}")
    assert rows(page) == []
    page.goto(live.url + "/admin/ctx/apikey/?q=boss")
    assert rows(page) == []

    missing = max(ApiKey.objects.values_list("pk", flat=True)) + 1000
    boss = keys.boss_key.pk
    foreign_page = _missing_message(page, live, f"/admin/ctx/apikey/{boss}/change/", boss)
    missing_page = _missing_message(page, live, f"/admin/ctx/apikey/{missing}/change/", missing)
    assert foreign_page == missing_page == NOT_THERE.format(model="API key")
    # A revoke posted for the foreign key by id changes nothing.
    page.goto(live.url + "/admin/ctx/apikey/")
    token = page.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    resp = page.request.post(
        live.url + f"/admin/ctx/apikey/{boss}/revoke/",
        form={"csrfmiddlewaretoken": token},
        headers={"Referer": live.url + "/admin/ctx/apikey/"},
    )
    assert resp.ok and ApiKey.objects.get(pk=boss).active
