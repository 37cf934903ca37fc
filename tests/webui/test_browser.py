"""The web UI in Chromium against the live server (runtime role: row-level security on;
collected, hashed static files; the Content-Security-Policy as sent): keyboard-only sign-in
and search, every page checked by axe-core and photographed at both widths, an edit found by
search, archive and restore, the graph re-centred, a review link confirmed, a hostile block
that runs nothing, and an outsider who sees nothing of acme."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import ConsoleMessage, Dialog, Page

from tests.conftest import Cast
from tests.support.axe import assert_accessible
from tests.support.browser import listen, save_screenshots
from tests.support.live import LiveServer
from tests.webui.cast import Seeded, seed

pytestmark = pytest.mark.django_db(transaction=True)  # the server sees the test's rows

HOSTILE_TITLE = "<img src=x onerror=\"window.pwned='title'\">Plan"
HOSTILE = (
    "Deploy checklist <script>window.pwned = 'script'; alert(1)</script>\n\n"
    '<img src="x" onerror="window.pwned = \'onerror\'">\n\n'
    "[click me](javascript:window.pwned='link') and [docs](https://example.org/a)\n"
)


@pytest.fixture
def watched(page: Page) -> Iterator[tuple[Page, list[str]]]:
    """The page and what went wrong in it: console errors (a CSP refusal is one), dialogs."""
    problems: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            problems.append(f"console: {msg.text} at {msg.location.get('url')}")

    def on_dialog(dialog: Dialog) -> None:
        problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    listen(page, "console", on_console)
    listen(page, "dialog", on_dialog)
    listen(page, "pageerror", lambda e: problems.append(f"error: {e}"))
    yield page, problems


def sign_in_by_keyboard(page: Page, live: LiveServer, key: str | None) -> None:
    assert key is not None
    page.goto(live.url + "/")
    assert page.url.startswith(live.url + "/sign-in?next=")
    # The key field takes the focus by itself (autofocus); Chromium applies it at a rendering
    # step that may come after `load`, so wait for it rather than lose the first keystroke.
    page.wait_for_function("() => document.activeElement?.name === 'api_key'")
    page.keyboard.type(key)
    page.keyboard.press("Enter")
    page.wait_for_url(live.url + "/")


def check(page: Page, name: str) -> None:
    """axe-core finds nothing serious; both widths photographed as `ui-<name>`."""
    assert_accessible(page)
    save_screenshots(page, f"ui-{name}")


def tab_to(page: Page, selector: str, limit: int = 25) -> None:
    """Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_it_walks_every_page_by_keyboard_and_passes_axe(
    live: LiveServer, watched: tuple[Page, list[str]], cast: Cast
) -> None:
    page, problems = watched
    s = seed(cast)
    page.goto(live.url + "/sign-in")
    check(page, "sign-in")
    sign_in_by_keyboard(page, live, cast.owner.key)
    check(page, "home")
    _search_and_open(page, live, s)
    _edit_then_find(page, live, s)
    _archive_and_restore(page, live, s)
    _graph(page, live, s)
    _browse_and_review(page, live, s)
    assert problems == []
    page.goto(live.url + f"/blocks/{uuid.uuid4()}")  # its 404 is logged: checked above
    check(page, "not-found")


def _search_and_open(page: Page, live: LiveServer, s: Seeded) -> None:
    page.goto(live.url + "/search")
    # The box takes the focus by itself (autofocus), applied at a rendering step that may come
    # after load: typing before it lost the first keystroke ("eploy tuesdays", a clean clone).
    page.wait_for_function("() => document.activeElement?.id === 'q'")
    page.keyboard.type("deploy tuesdays")
    # As-you-type: the lexical matches appear under the box before Enter.
    page.wait_for_selector("#suggest li a", timeout=30_000)
    assert "Deploy plan" in page.locator("#suggest li a").all_inner_texts()
    page.keyboard.press("Enter")
    # The server's first query loads its embedding model: a long first wait on a loaded machine.
    page.wait_for_url(re.compile(r"/search\?q=deploy\+tuesdays"), timeout=120_000)
    assert page.locator(".hit h2").first.inner_text() == "Deploy plan"
    assert page.locator(".hit mark").first.inner_text().lower() == "deploy"
    page.locator("#explain summary").click()
    assert page.locator("#explain dt", has_text="timings").count() == 1
    check(page, "search")
    tab_to(page, ".hit h2 a")
    page.keyboard.press("Enter")
    page.wait_for_url(live.url + f"/blocks/{s.plan}")
    check(page, "block")


def _edit_then_find(page: Page, live: LiveServer, s: Seeded) -> None:
    page.get_by_role("link", name="Edit").click()
    page.wait_for_url("**/edit")
    check(page, "edit")
    page.fill("#id_content", "Deploys on Tuesdays, after the aquarium standup.")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(live.url + f"/blocks/{s.plan}")
    page.goto(live.url + "/search?q=aquarium")
    assert page.locator(".hit h2").all_inner_texts() == ["Deploy plan"]


def _archive_and_restore(page: Page, live: LiveServer, s: Seeded) -> None:
    page.goto(live.url + f"/blocks/{s.notes}")
    page.get_by_role("button", name="Archive").click()
    page.wait_for_selector("text=Archived “Deploy notes”")
    check(page, "archived")
    page.goto(live.url + "/search?q=rollbacks")
    assert page.locator(".hit h2").count() == 0
    page.go_back()
    page.get_by_role("button", name="Restore").click()
    page.wait_for_url(live.url + f"/blocks/{s.notes}")
    page.goto(live.url + "/search?q=rollbacks")
    assert page.locator(".hit h2").all_inner_texts() == ["Deploy notes"]


def _graph(page: Page, live: LiveServer, s: Seeded) -> None:
    page.goto(live.url + f"/graph/{s.plan}")
    page.wait_for_selector("#graph[data-drawn='2']")
    box = page.locator("#graph").bounding_box()
    assert box is not None
    where = page.evaluate("id => window.ctxGraph.getElementById(id).renderedPosition()", s.notes)
    page.mouse.click(box["x"] + where["x"], box["y"] + where["y"])
    assert page.locator("#graph-chosen a").first.inner_text() == "Open “Deploy notes”"
    check(page, "graph")
    page.get_by_role("link", name="Centre the graph on it").click()
    page.wait_for_url(live.url + f"/graph/{s.notes}")
    page.wait_for_selector("#graph[data-drawn='2']")
    assert page.locator("h1 a").inner_text() == "Deploy notes"


def _browse_and_review(page: Page, live: LiveServer, s: Seeded) -> None:
    page.goto(live.url + "/blocks")
    assert page.locator("table.list tbody th").count() == 3
    check(page, "browse")
    page.get_by_label("Choose “Deploy notes”").check()
    page.get_by_label("Category").last.fill("release")
    page.get_by_role("button", name="Move to category").click()
    page.wait_for_selector("text=1 of 1 chosen block moved.")
    check(page, "browse-bulk-done")
    page.goto(live.url + "/topics")
    page.get_by_role("button", name="Build it now").first.click()
    page.wait_for_selector(".content h2, .content ul")
    check(page, "topics")
    page.goto(live.url + "/review")
    page.locator("details.diff summary").first.click()
    assert page.locator("table.diff").first.is_visible()
    check(page, "review")
    page.get_by_role("button", name="Confirm (pin)").click()
    page.wait_for_url(live.url + "/review")
    assert page.get_by_role("button", name="Confirm (pin)").count() == 0
    page.get_by_role("button", name="Merge into “Deploy plan”").click()
    page.wait_for_url(live.url + "/review")
    assert page.get_by_text("No open flags.").count() == 1
    page.goto(live.url + f"/blocks/{s.plan}")
    assert "Deploys Tuesday." in page.locator(".content").inner_text()  # the copy's text


def test_it_runs_none_of_a_hostile_blocks_markup(
    live: LiveServer, watched: tuple[Page, list[str]], cast: Cast
) -> None:
    page, problems = watched
    found = cast.owner.store(title=HOSTILE_TITLE, content=HOSTILE)
    sign_in_by_keyboard(page, live, cast.owner.key)
    for path in ("/", f"/blocks/{found['id']}", "/search?q=deploy+checklist", "/blocks"):
        page.goto(live.url + path)
        assert page.evaluate("() => window.pwned") is None, path
    page.goto(live.url + f"/blocks/{found['id']}")
    assert page.locator(".content a", has_text="click me").count() == 0  # text, not a link
    page.locator(".content", has_text="click me").click()
    page.goto(live.url + f"/blocks/{found['id']}/edit")
    assert page.evaluate("() => window.pwned") is None
    assert problems == []


def test_it_shows_an_outsider_nothing_of_acme(
    live: LiveServer, watched: tuple[Page, list[str]], cast: Cast
) -> None:
    page, _ = watched
    s = seed(cast)
    sign_in_by_keyboard(page, live, cast.outsider.key)
    for path in ("/", "/blocks", "/search?q=deploy+plan", "/review"):
        page.goto(live.url + path)
        assert "Deploy" not in page.inner_text("main"), path
    missing = page.goto(live.url + f"/blocks/{uuid.uuid4()}")
    missing_text = page.inner_text("main")
    for path in (f"/blocks/{s.plan}", f"/graph/{s.plan}"):
        response = page.goto(live.url + path)
        assert response is not None and missing is not None
        assert response.status == missing.status == 404
        assert page.inner_text("main") == missing_text
    save_screenshots(page, "ui-outsider-not-found")
