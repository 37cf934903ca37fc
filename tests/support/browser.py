"""Real-browser tests: Debian's Chromium driven by Playwright for Python.

One Chromium per session (`browser`), a fresh context per test (`page`: no cookies or storage
from the test before). Playwright downloads no browser here: it launches `/usr/bin/chromium`,
which `make test` installs (scripts/install-chromium.sh). Without it the tests fail, they do
not skip.

Playwright's sync API leaves its event loop marked as running in this thread between its calls.
Django then takes the thread for an async one: it refuses ORM calls, and asgiref keeps the
database connection per context instead of per thread, so a test's rows would go through a
second connection, outside the test's transaction, and stay. `launch()` wraps Playwright's
wait so that the loop is marked running only while a Playwright call runs (private API of
playwright 1.x: `_sync_base.wait_for_future`; `tests/frontend/test_browser_support.py` fails
if that stops holding).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright._impl import _sync_base
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


_wait_for_future = _sync_base.wait_for_future


def _wait_then_unmark(loop: Any, fiber: Any, future: Any) -> None:
    """Playwright's wait for one sync call, with its loop marked running only meanwhile."""
    asyncio._set_running_loop(loop)
    try:
        _wait_for_future(loop, fiber, future)
    finally:
        asyncio._set_running_loop(None)


def launch() -> tuple[Playwright, Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests drive Debian's chromium, which "
            "`make test` installs (scripts/install-chromium.sh).",
            pytrace=False,
        )
    _sync_base.wait_for_future = _wait_then_unmark  # type: ignore[assignment]
    playwright = sync_playwright().start()
    asyncio._set_running_loop(None)  # start() leaves it marked, as every call did
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
    return playwright, browser


def listen(page: Page, event: str, handler: Any) -> None:
    """`page.on`, with Playwright's loop marked running while it subscribes: the subscription
    is scheduled on the current loop, and after any `asyncio.run` earlier in the session the
    main thread has none (RuntimeError: no current event loop)."""
    asyncio._set_running_loop(page._loop)
    try:
        page.on(event, handler)  # type: ignore[call-overload]  # event names as plain strings
    finally:
        asyncio._set_running_loop(None)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the session."""
    playwright, chromium = launch()
    yield chromium
    chromium.close()
    asyncio._set_running_loop(playwright._loop)  # stop() resumes the loop directly
    playwright.stop()


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
