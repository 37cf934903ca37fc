"""Creating an API key in the admin, in Chromium: its secret is shown once, on the page after
creation, never on a reload, and it works against the API at once."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page

from ctx.models import ApiKey
from tests.admin.conftest import Keys, browser_sign_in, shot
from tests.support.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_shows_a_new_keys_secret_once_and_the_key_works(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + "/admin/ctx/apikey/add/")
    page.fill("#id_name", "ci-bot")
    page.select_option("#id_role", "member")
    page.get_by_label("acme:team").nth(1).check()  # the write scopes' acme:team
    shot(page, "key-add")
    page.click("input[name=_save]")
    secret = page.locator("#ctx-shown-once-secret").inner_text().strip()
    key = ApiKey.objects.get(name="ci-bot")
    assert secret.startswith(f"ctx_{key.prefix}_") and len(secret) > 40
    assert page.url.endswith(f"/admin/ctx/apikey/{key.pk}/change/")
    shot(page, "key-shown-once")

    page.reload()
    assert page.locator("#ctx-shown-once-secret").count() == 0
    assert secret not in page.content()
    assert f"ctx_{key.prefix}_…" in page.content()  # only the prefix from now on
    shot(page, "key-after-reload")

    whoami = httpx.get(live.url + "/api/whoami", headers={"X-Context-Key": secret})
    assert whoami.status_code == 200, whoami.text
    body = whoami.json()
    assert (body["key"]["name"], body["tenant"], body["role"]) == ("ci-bot", "acme", "member")
    assert body["write_scopes"] == ["acme:team"]


def test_it_revokes_a_key_from_its_page(live: LiveServer, page: Page, keys: Keys) -> None:
    target, raw = _member(keys)
    assert httpx.get(live.url + "/api/whoami", headers={"X-Context-Key": raw}).status_code == 200
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + f"/admin/ctx/apikey/{target.pk}/change/")
    page.click("button.ctx-action-revoke")
    assert "revoked" in page.locator(".messagelist").inner_text()
    assert httpx.get(live.url + "/api/whoami", headers={"X-Context-Key": raw}).status_code == 401
    shot(page, "key-revoked")


def _member(keys: Keys) -> tuple[ApiKey, str]:
    from ctx import services

    return services.key_create(tenant=keys.acme, name="laptop", home="acme:main")
