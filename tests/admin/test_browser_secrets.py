"""Setting and rotating a sealed secret in the admin, in Chromium: the value goes into a
password field, is sealed, and never comes back in a page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from secrets import crypto
from secrets.models import Secret, SecretAudit
from secrets.selectors import qualified_scope, sealed_of
from tests.admin.conftest import Keys, browser_sign_in, shot
from tests.support.live import SECRETS_KEY, LiveServer

pytestmark = pytest.mark.django_db(transaction=True)
FIRST = "sk-live-first-Zq8xV3-never-shown"
SECOND = "sk-live-second-Qw7yU2-never-shown"


def _opened(secret: Secret) -> str:
    keyring = crypto.keyring_from({"CTX_SECRETS_KEY": SECRETS_KEY})
    value, _ = crypto.unseal(
        keyring.openers(secret.key_version),
        scope=qualified_scope(secret.scope),
        name=secret.name,
        sealed=sealed_of(secret),
    )
    return value


def test_it_sets_and_rotates_a_secret_without_showing_its_value(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + "/admin/secrets/secret/add/")
    assert page.locator("#id_value").get_attribute("type") == "password"
    page.select_option("#id_scope", label="acme:team")
    page.fill("#id_name", "OPENAI_API_KEY")
    page.fill("#id_value", FIRST)
    shot(page, "secret-add")
    page.click("input[name=_save]")
    assert "/admin/secrets/secret/" in page.url and FIRST not in page.content()
    secret = Secret.objects.select_related("scope__tenant").get(name="OPENAI_API_KEY")
    assert (secret.scope.name, _opened(secret)) == ("acme:team", FIRST)
    shot(page, "secret-list")

    page.goto(live.url + f"/admin/secrets/secret/{secret.pk}/change/")
    assert FIRST not in page.content() and "ciphertext" not in page.content().lower()
    assert page.locator("#id_value").input_value() == ""
    page.fill("#id_value", SECOND)
    page.click("input[name=_save]")
    assert "rotated" in page.locator(".messagelist").inner_text()
    assert SECOND not in page.content()
    shot(page, "secret-rotated")

    secret.refresh_from_db()
    assert _opened(secret) == SECOND and secret.rotated_at is not None
    assert secret.rotated_by == keys.owner_key.prefix
    actions = list(SecretAudit.objects.order_by("id").values_list("action", "scope", "actor"))
    prefix = keys.owner_key.prefix
    assert actions == [("created", "acme/acme:team", prefix), ("rotated", "acme/acme:team", prefix)]


def test_it_keeps_the_form_and_no_value_when_the_operation_refuses(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + "/admin/secrets/secret/add/")
    page.select_option("#id_scope", label="acme:main")
    page.fill("#id_name", "bad name!")  # the operation's own rule, its own message
    page.fill("#id_value", FIRST)
    page.click("input[name=_save]")
    assert "A secret name is 1-100 characters" in page.locator(".errorlist").inner_text()
    assert page.locator("#id_value").input_value() == "" and FIRST not in page.content()
    assert not Secret.objects.exists()
