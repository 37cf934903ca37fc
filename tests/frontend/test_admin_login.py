"""The Django admin's login page in Chromium, served by the live uvicorn server: styled by its
collected stylesheets, screenshotted at both widths, checked by axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Response

from tests.support.axe import assert_accessible
from tests.support.browser import computed_style, listen, save_screenshots
from tests.support.live import LiveServer

TRANSPARENT = "rgba(0, 0, 0, 0)"  # a <div>'s background with no stylesheet applied
pytestmark = pytest.mark.django_db  # the live server runs on the test database


@pytest.fixture
def login(live: LiveServer, page: Page) -> Page:
    """The login page, loaded; every static file it asked for answered 200, and the browser
    logged no error (it asked for /favicon.ico, a 404, until the page named its icon)."""
    statics: list[Response] = []
    errors: list[str] = []
    listen(page, "response", lambda r: statics.append(r) if "/static/" in r.url else None)
    listen(page, "console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(live.url + "/admin/login/")
    page.wait_for_load_state("networkidle")
    assert statics, "the page loaded no static file"
    assert {r.url: r.status for r in statics if r.status != 200} == {}
    assert page.locator("link[rel=icon]").count() == 1 and errors == []
    return page


def test_it_styles_the_login_page_with_the_collected_stylesheets(login: Page) -> None:
    sheets = login.evaluate("() => [...document.styleSheets].map(s => [s.href, s.cssRules.length])")
    hrefs = [href for href, _ in sheets]
    assert any(h and "/static/admin/css/base." in h for h in hrefs), hrefs
    assert all(rules > 0 for _, rules in sheets), sheets
    assert computed_style(login, "#header", "background-color") != TRANSPARENT
    # The login form is the narrow centred box of login.css, not a full-width block.
    box = login.locator("#container").bounding_box()
    assert box is not None and box["width"] < 1280 / 2


def test_it_saves_screenshots_of_the_login_page_at_both_widths(
    login: Page, request: pytest.FixtureRequest
) -> None:
    paths = save_screenshots(login, request.node.name)
    assert [p.name for p in paths] == [
        f"{request.node.name}-1280.png",
        f"{request.node.name}-390.png",
    ]
    for path in paths:
        assert path.stat().st_size > 5000  # a rendered page, not a blank image


def test_it_has_no_serious_accessibility_violations_on_the_login_page(login: Page) -> None:
    # Django's own page: axe finds one moderate rule (no <h1>), nothing serious or critical.
    assert_accessible(login)
