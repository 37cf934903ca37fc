"""The browser test support itself (tests/support/browser.py, axe.py): the accessibility check
can fail, and the ORM works in a browser test, inside the test's transaction, and after it."""

from __future__ import annotations

import asyncio
import os

import pytest
from playwright.sync_api import Page

from ctx import services
from ctx.models import Tenant
from tests.support.axe import assert_accessible, run_axe

pytestmark = pytest.mark.django_db

INACCESSIBLE = "<html><body><img src='data:,'><button></button></body></html>"


def test_it_fails_a_page_with_critical_accessibility_violations(page: Page) -> None:
    page.set_content(INACCESSIBLE)
    report = run_axe(page)
    assert {v["id"] for v in report.at("critical")} >= {"image-alt", "button-name"}
    with pytest.raises(AssertionError, match="image-alt"):
        assert_accessible(page)


def test_it_lets_a_browser_test_write_rows_between_page_actions(page: Page) -> None:
    page.set_content("<p>before</p>")
    services.tenant_create(name="written-mid-test")
    page.set_content("<p>after</p>")
    assert Tenant.objects.filter(name="written-mid-test").exists()


def test_it_rolled_back_the_rows_of_the_browser_test_before() -> None:
    """Between Playwright calls no loop is marked running, so Django's async-safety check
    stays on and the ORM used the test's own connection and transaction: nothing leaked."""
    assert "DJANGO_ALLOW_ASYNC_UNSAFE" not in os.environ
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    assert not Tenant.objects.filter(name="written-mid-test").exists()
