"""The search page: the query pipeline through the operation, hits with their scope, category,
age and a preview with the matched words marked, the explanation, and the filters."""

from __future__ import annotations

import re

import pytest

from retrieval import indexing
from tests.conftest import Cast
from tests.webui.conftest import signed_in, text

pytestmark = pytest.mark.django_db


def _titles(html: str) -> list[str]:
    return re.findall(r'<h2><a href="/blocks/[0-9a-f-]+">([^<]*)</a></h2>', html)


def _seed(cast: Cast) -> None:
    cast.owner.store(category="ops", title="Deploy policy", content="Deploys run on Tuesdays.")
    cast.owner.store(
        category="food", title="Lunch", content="The ramen place deploys a new broth weekly.",
        scope="acme:team", type="note",
    )  # fmt: skip
    cast.outsider.store(category="ops", title="Globex deploys", content="Deploys on Fridays.")


def test_it_finds_hits_and_marks_the_matched_words(cast: Cast) -> None:
    _seed(cast)
    html = text(signed_in(cast.owner.key).get("/search", {"q": "deploys tuesdays"}))
    assert _titles(html)[0] == "Deploy policy"
    assert "Globex deploys" not in html
    assert "<mark>Deploys</mark> run on <mark>Tuesdays</mark>." in html
    assert '<span class="tag">acme:main</span> <span class="tag">ops</span>' in html
    assert "days old" in html


def test_it_explains_each_hit_and_the_whole_search(cast: Cast) -> None:
    _seed(cast)
    indexing.embed_pending(limit=100)
    html = text(signed_in(cast.owner.key).get("/search", {"q": "deploys tuesdays"}))
    why = html[html.index('<details class="why">') : html.index("</details>")]
    assert re.search(r"<th scope=\"row\">fts_\w+</th><td>1</td>", why), why
    assert "semantic" in why and "after the stages" in why
    drawer = html[html.index('id="explain"') :]
    for part in ("timings (ms)", "confidence", "weights", "temporal", "language"):
        assert f"<dt>{part}" in drawer, part


def test_it_filters_by_scope_category_and_type(cast: Cast) -> None:
    _seed(cast)
    client = signed_in(cast.owner.key)
    assert _titles(text(client.get("/search", {"q": "deploys", "scope": "acme:team"}))) == ["Lunch"]
    assert _titles(text(client.get("/search", {"q": "deploys", "category": "ops"}))) == [
        "Deploy policy"
    ]
    assert _titles(text(client.get("/search", {"q": "deploys", "type": "note"}))) == ["Lunch"]


def test_it_shows_a_bad_filter_as_a_message(cast: Cast) -> None:
    resp = signed_in(cast.owner.key).get("/search", {"q": "x", "type": "poem"})
    assert resp.status_code == 400 and 'class="error" role="alert"' in text(resp)


def test_it_escapes_markup_in_a_preview(cast: Cast) -> None:
    cast.owner.store(title="Tags", content="deploys <img src=x onerror=alert(1)> now")
    html = text(signed_in(cast.owner.key).get("/search", {"q": "deploys"}))
    assert "<mark>deploys</mark> &lt;img src=x onerror=alert(1)&gt; now" in html
    assert "<img" not in html
