"""Real-browser tests: Debian's Chromium driven by Playwright for Python.

One Chromium per session (`browser`), a fresh context per test (`page`: no cookies or storage
from the test before). Playwright downloads no browser here: it launches `/usr/bin/chromium`,
which `make test` installs (scripts/install-chromium.sh). Without it the tests fail, they do
not skip.

Playwright's sync API leaves its event loop marked as running in this thread between its calls,
and Django then refuses ORM calls (SynchronousOnlyOperation), although the test's code runs
synchronously while that loop is suspended. So the loop is marked running only while a browser
test runs (with Django's check off for that test alone, so it can write rows between page
actions), and parked between them, where every other test keeps the check. Inside a browser
test, `asyncio.run()` and `async_to_sync` cannot be used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
# What works on these machines: their closed network refuses Chromium's background connections
# (updates, sync, QUIC); as root the sandbox cannot start. Playwright adds --headless itself.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"  # git-ignored
WIDTHS = (1280, 390)  # a laptop and a phone


@dataclass
class Session:
    playwright: Playwright
    browser: Browser

    def resume(self) -> None:
        """Mark Playwright's loop running again: its dispatcher expects it (see the docstring)."""
        asyncio._set_running_loop(self.playwright._loop)

    @staticmethod
    def park() -> None:
        asyncio._set_running_loop(None)


def launch() -> Session:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests drive Debian's chromium, which "
            "`make test` installs (scripts/install-chromium.sh).",
            pytrace=False,
        )
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
    return Session(playwright, browser)


@pytest.fixture(scope="session")
def browser_session() -> Iterator[Session]:
    session = launch()
    session.park()
    yield session
    session.resume()
    session.browser.close()
    session.playwright.stop()


@pytest.fixture
def browser(browser_session: Session, monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    """The session's Chromium, with Playwright's loop marked running for this test only."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    browser_session.resume()
    try:
        yield browser_session.browser
    finally:
        browser_session.park()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page in a fresh context, 1280 px wide."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def save_screenshots(page: Page, name: str) -> list[Path]:
    """The whole page at each width in WIDTHS, as `test-artifacts/screenshots/<name>-<w>.png`."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size or {"width": WIDTHS[0], "height": 800}
    paths = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": original["height"]})
        path = SCREENSHOTS / f"{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        paths.append(path)
    page.set_viewport_size(original)
    return paths


def computed_style(page: Page, selector: str, prop: str) -> Any:
    """The computed value of a CSS property of the first element matching `selector`."""
    return page.eval_on_selector(
        selector, "(el, prop) => getComputedStyle(el).getPropertyValue(prop)", prop
    )
