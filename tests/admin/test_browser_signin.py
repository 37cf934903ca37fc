"""Signing in to the admin with an API key, in Chromium against the live server (runtime role,
row-level security on, collected static files)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from ctx.operators import BAD_KEY, NOT_AN_OPERATOR
from tests.admin.conftest import Keys, browser_sign_in, shot
from tests.support.axe import assert_accessible
from tests.support.browser import computed_style
from tests.support.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)  # the server sees the test's rows


def test_it_signs_in_with_a_server_admin_key_to_a_styled_index(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    page.goto(live.url + "/admin/login/")
    assert page.locator("#id_api_key").get_attribute("type") == "password"
    assert page.locator("#id_username").count() == 0  # no passwords in ctx
    shot(page, "login")
    browser_sign_in(page, live, keys.root)
    assert page.locator("#user-tools strong").text_content() == "root @ ops"
    assert computed_style(page, "#header", "background-color") != "rgba(0, 0, 0, 0)"
    for section in ("Blocks", "API keys", "Secrets", "Tenants", "Links", "LLM calls"):
        assert page.get_by_role("link", name=section, exact=True).count() == 1, section
    assert page.get_by_role("link", name="View site").count() == 0  # it led to a JSON 404
    shot(page, "index-server-admin")
    assert_accessible(page)


def test_it_refuses_a_wrong_key_and_a_members_key_on_the_login_page(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    page.goto(live.url + "/admin/login/")
    page.fill("#id_api_key", keys.root[:-4] + "xxxx")
    page.click("#login-form input[type=submit]")
    assert page.locator(".errornote").inner_text().strip() == BAD_KEY
    assert page.locator("#id_api_key").input_value() == ""  # never rendered back
    page.fill("#id_api_key", keys.member)
    page.click("#login-form input[type=submit]")
    assert page.locator(".errornote").inner_text().strip() == NOT_AN_OPERATOR
    shot(page, "login-refused")
    page.goto(live.url + "/admin/ctx/block/")
    assert "/admin/login/" in page.url


def test_it_shows_a_tenant_owner_only_its_tenant_pages(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    browser_sign_in(page, live, keys.owner)
    assert page.locator("#user-tools strong").text_content() == "owner @ acme"
    # The LLM call log and the dream switch are server-wide: server admins only.
    assert page.get_by_role("link", name="LLM calls", exact=True).count() == 0
    assert page.get_by_role("link", name="Dream modes", exact=True).count() == 0
    page.goto(live.url + "/admin/ctx/tenant/")
    assert page.locator("#result_list tbody tr").count() == 1
    assert page.locator("#result_list tbody tr th").inner_text().strip() == "acme"
    shot(page, "index-tenant-owner")
