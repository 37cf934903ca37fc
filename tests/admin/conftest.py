"""The admin's cast: a server admin (tenant ops), acme's owner and a member, globex's owner;
clients signed in to the admin with their keys, as an operator signs in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Page

from ctx import services
from ctx.models import ApiKey, Block, Tenant
from ctx.selectors import principal_from_key
from ctx.services import BlockInput, block_upsert
from tests.support.browser import save_screenshots
from tests.support.live import LiveServer

# Django's own words for a row that is not there (or not the operator's), apostrophe included.
MISSING = "doesn\u2019t exist"
NOT_THERE = "{model} with ID \u201c<id>\u201d doesn\u2019t exist. Perhaps it was deleted?"


@dataclass
class Keys:
    acme: Tenant
    globex: Tenant
    root: str  # server admin (tenant ops)
    owner: str  # acme owner: writes acme:main and acme:team
    member: str  # acme member
    boss: str  # globex owner
    owner_key: ApiKey
    boss_key: ApiKey


def make_keys() -> Keys:
    ops = services.tenant_create(name="ops")
    acme = services.tenant_create(name="acme", scopes=["acme:team"])
    globex = services.tenant_create(name="globex")
    _, root = services.key_create(
        tenant=ops, name="root", home="ops:main", is_admin=True, role="owner"
    )
    owner_key, owner = services.key_create(
        tenant=acme, name="owner", home="acme:main", write=["acme:main", "acme:team"], role="owner"
    )
    _, member = services.key_create(tenant=acme, name="member", home="acme:main")
    boss_key, boss = services.key_create(
        tenant=globex, name="boss", home="globex:main", role="owner"
    )
    return Keys(acme, globex, root, owner, member, boss, owner_key, boss_key)


@pytest.fixture
def keys(db: Any) -> Keys:
    return make_keys()


def sign_in(raw_key: str) -> Client:
    """A client signed in through the admin's login form with an API key."""
    client = Client()
    resp = client.post("/admin/login/", {"api_key": raw_key, "next": "/admin/"})
    assert resp.status_code == 302 and resp["Location"] == "/admin/", resp.content.decode()[:3000]
    return client


def block(key: ApiKey, title: str, content: str, *, scope: str | None = None, **kw: Any) -> Block:
    """A block written through the one write path, as the key."""
    data = BlockInput(category=kw.pop("category", "notes"), title=title, content=content, **kw)
    return block_upsert(principal=principal_from_key(key), scope=scope, data=data).block


# --- in a real browser (tests/support/browser.py), against the session's live server --------


def browser_sign_in(page: Page, live: LiveServer, raw_key: str) -> None:
    """Sign in on the admin's login page as an operator would."""
    page.goto(live.url + "/admin/login/")
    page.fill("#id_api_key", raw_key)
    page.click("#login-form input[type=submit]")
    page.wait_for_url(live.url + "/admin/")


def shot(page: Page, name: str) -> None:
    """Both widths of the page under `admin-<name>` (test-artifacts/screenshots/)."""
    save_screenshots(page, f"admin-{name}")


def rows(page: Page) -> list[str]:
    """The first cell's text of each row of a change list."""
    return [t.strip() for t in page.locator("#result_list tbody tr th").all_inner_texts()]
