"""Static files from the web process (WhiteNoise) on the live uvicorn server, as `make run`
serves them: collected, content-hashed, compressed, cached for a year under hashed names."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import brotli
import httpx
import pytest
from playwright.sync_api import Page

from tests.support.browser import listen
from tests.support.live import LiveServer

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "frontend" / "static" / "frontend" / "vendor"
HASHED_BASE_CSS = re.compile(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"')
YEAR = 365 * 24 * 3600
pytestmark = pytest.mark.django_db  # the live server runs on the test database


def _get(live: LiveServer, path: str, encoding: str = "identity") -> httpx.Response:
    with httpx.Client(base_url=live.url, headers={"Accept-Encoding": encoding}) as client:
        return client.get(path)


def _hashed(live: LiveServer, name: str) -> str:
    """The URL collectstatic gave `name` (its manifest), e.g. htmx.min.<hash>.js."""
    assert live.static_root is not None
    manifest = json.loads((live.static_root / "staticfiles.json").read_text())
    return "/static/" + manifest["paths"][name]


def test_it_links_the_admin_stylesheet_by_its_hashed_name(live: LiveServer) -> None:
    page = _get(live, "/admin/login/")
    assert page.status_code == 200
    (href,) = HASHED_BASE_CSS.findall(page.text)
    assert href == _hashed(live, "admin/css/base.css")


@pytest.mark.parametrize(("accept", "encoding"), [("br", "br"), ("gzip", "gzip")])
def test_it_serves_the_hashed_stylesheet_compressed_and_cached_for_a_year(
    live: LiveServer, accept: str, encoding: str
) -> None:
    href = _hashed(live, "admin/css/base.css")
    plain = _get(live, href)
    headers = {"Accept-Encoding": accept}
    with (
        httpx.Client(base_url=live.url) as client,
        client.stream("GET", href, headers=headers) as packed,
    ):
        body = b"".join(packed.iter_raw())  # as sent: httpx would decode it
    assert packed.status_code == 200
    assert packed.headers["content-encoding"] == encoding
    assert packed.headers["content-type"].startswith("text/css")
    assert "Accept-Encoding" in packed.headers["vary"]
    assert f"max-age={10 * YEAR}" in packed.headers["cache-control"]
    assert "immutable" in packed.headers["cache-control"]
    unpacked = brotli.decompress(body) if encoding == "br" else gzip.decompress(body)
    assert unpacked == plain.content
    assert len(body) < len(plain.content) / 2
    assert b"#header" in unpacked  # the admin's stylesheet, not an error page


def test_it_serves_the_unhashed_name_with_a_short_cache(live: LiveServer) -> None:
    response = _get(live, "/static/admin/css/base.css")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/css")
    assert "immutable" not in response.headers["cache-control"]
    assert "max-age=60" in response.headers["cache-control"]


def test_it_answers_404_for_a_static_file_that_does_not_exist(live: LiveServer) -> None:
    assert _get(live, "/static/admin/css/no-such-file.css").status_code == 404


@pytest.mark.parametrize(
    "name", ["frontend/vendor/htmx/htmx.min.js", "frontend/vendor/cytoscape/cytoscape.min.js"]
)
def test_it_serves_the_vendored_scripts_as_committed(live: LiveServer, name: str) -> None:
    committed = (VENDOR / name.removeprefix("frontend/vendor/")).read_bytes()
    for url in ("/static/" + name, _hashed(live, name)):
        response = _get(live, url)
        assert response.status_code == 200, url
        media_type, charset = response.headers["content-type"].split(";")
        assert (media_type, charset.strip()) == ("text/javascript", 'charset="utf-8"')
        assert response.content == committed
    packed = _get(live, _hashed(live, name), encoding="br")
    assert packed.headers["content-encoding"] == "br"


def test_it_runs_the_vendored_htmx_and_cytoscape_in_chromium(live: LiveServer, page: Page) -> None:
    """Loaded by URL from the server into a page of the same origin, both libraries work."""
    failed: list[str] = []
    listen(page, "requestfailed", lambda request: failed.append(request.url))
    page.goto(live.url + "/admin/login/")
    page.add_script_tag(url=_hashed(live, "frontend/vendor/htmx/htmx.min.js"))
    page.add_script_tag(url=_hashed(live, "frontend/vendor/cytoscape/cytoscape.min.js"))
    assert page.evaluate("() => htmx.version") == "4.0.1"
    positions = page.evaluate(
        """() => {
            const cy = cytoscape({headless: true, styleEnabled: false, elements: [
                {data: {id: 'a'}}, {data: {id: 'b'}}, {data: {id: 'c'}},
                {data: {source: 'a', target: 'b'}}, {data: {source: 'b', target: 'c'}}]});
            cy.layout({name: 'cose', animate: false, randomize: true}).run();
            return cy.nodes().map(n => [n.position('x'), n.position('y')]);
        }"""
    )
    assert len({tuple(p) for p in positions}) == 3  # the layout placed three distinct nodes
    assert failed == []
