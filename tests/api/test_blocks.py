"""GET /api/blocks: the readable blocks, newest change first, filtered, a page at a time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from ctx.errors import FORBIDDEN_READ_MESSAGE
from ctx.models import Block
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _titles(body: dict[str, Any]) -> list[str]:
    return [r["title"] for r in body["results"]]


def _page(cast: Cast, **params: Any) -> dict[str, Any]:
    status, body = cast.owner.get("/api/blocks", **params)
    assert status == 200, body
    return body


def test_it_lists_newest_first_and_pages_with_a_cursor(cast: Cast) -> None:
    for n in range(7):
        cast.owner.store(title=f"b{n}", content=f"text {n}")
    first = _page(cast, limit=3)
    assert _titles(first) == ["b6", "b5", "b4"] and first["count"] == 3
    second = _page(cast, limit=3, cursor=first["next_cursor"])
    third = _page(cast, limit=3, cursor=second["next_cursor"])
    assert _titles(second) == ["b3", "b2", "b1"] and _titles(third) == ["b0"]
    assert third["next_cursor"] is None
    assert set(first["results"][0]) >= {"id", "scope", "category", "preview", "updated_at"}


def test_it_pages_by_title_and_oldest_first_and_lists_archived_blocks(cast: Cast) -> None:
    for n, title in enumerate(("delta", "alpha", "Charlie | x", "bravo", "alpha")):
        cast.owner.store(category=f"c{n}", title=title, content=f"note {n} about {title}")
    first = _page(cast, limit=2, order="title")
    rest = _page(cast, limit=5, order="title", cursor=first["next_cursor"])
    titles = _titles(first) + _titles(rest)
    assert len(titles) == 5 and titles.index("alpha") < titles.index("bravo")
    assert titles.index("bravo") < titles.index("delta") and rest["next_cursor"] is None
    oldest = _page(cast, limit=2, order="oldest")
    assert _titles(oldest) == ["delta", "alpha"]
    # a cursor of one order is refused by another
    status, body = cast.owner.get("/api/blocks", order="oldest", cursor=first["next_cursor"])
    assert status == 400 and body["error"]["details"]["field"] == "cursor"
    assert cast.owner.get("/api/blocks", order="random")[0] == 400
    gone = _page(cast, limit=1)["results"][0]
    cast.owner.post("/api/manage", {"action": "delete", "id": gone["id"]})
    archived = _page(cast, archived="true")
    assert [r["id"] for r in archived["results"]] == [gone["id"]]
    assert gone["id"] not in [r["id"] for r in _page(cast)["results"]]
    assert cast.owner.get("/api/blocks", archived="maybe")[0] == 400


def test_it_breaks_ties_of_the_same_time_by_id(cast: Cast) -> None:
    ids = [cast.owner.store(title=f"t{n}")["id"] for n in range(5)]
    Block.objects.filter(pk__in=ids).update(updated_at=timezone.now())  # one instant for all
    seen: list[str] = []
    cursor = None
    while True:
        body = _page(cast, limit=2, **({"cursor": cursor} if cursor else {}))
        seen += [r["id"] for r in body["results"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == 5


def test_it_filters_by_scope_category_tags_type_and_since(cast: Cast) -> None:
    cast.owner.store(category="infra", title="Docker", tags=["ops", "prod"])
    cast.owner.store(category="infra", title="Nginx", tags=["ops"], type="decision")
    cast.owner.store(category="food", title="Lunch", scope="acme:team")
    old = cast.owner.store(category="infra", title="Old")
    Block.objects.filter(pk=old["id"]).update(updated_at=timezone.now() - timedelta(days=30))
    assert _titles(_page(cast, category="infra")) == ["Nginx", "Docker", "Old"]
    assert _titles(_page(cast, tags="ops,prod")) == ["Docker"]
    assert _titles(_page(cast, type="decision")) == ["Nginx"]
    assert _titles(_page(cast, scope="acme:team")) == ["Lunch"]
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert "Old" not in _titles(_page(cast, since=since))
    # the words `ctx changes --since` reads
    assert _titles(_page(cast, since="2 hours ago")) == ["Lunch", "Nginx", "Docker"]
    assert "Old" not in _titles(_page(cast, since="yesterday"))
    assert "Old" in _titles(_page(cast, since="40 days ago"))
    status, body = cast.owner.get("/api/blocks", since="whenever")
    assert status == 400 and body["error"]["details"] == {"field": "since"}


def test_it_shows_only_readable_blocks(cast: Cast) -> None:
    cast.owner.store(title="acme's")
    cast.outsider.store(title="globex's")
    assert _titles(_page(cast)) == ["acme's"]
    foreign = cast.outsider.get("/api/blocks", scope="acme:main")
    assert foreign == cast.outsider.get("/api/blocks", scope="acme:nowhere")
    assert foreign[0] == 403 and foreign[1]["error"]["message"] == FORBIDDEN_READ_MESSAGE


def test_it_refuses_a_cursor_it_did_not_make(cast: Cast) -> None:
    status, body = cast.owner.get("/api/blocks", cursor="not-a-cursor")
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert "cursor" in body["error"]["message"]


def test_it_bounds_the_page(cast: Cast) -> None:
    status, body = cast.owner.get("/api/blocks", limit=501)
    assert status == 400 and "limit" in body["error"]["message"]


def test_it_reads_a_page_in_a_fixed_number_of_queries(
    cast: Cast, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    for n in range(20):
        cast.owner.store(title=f"b{n}")
    with django_assert_num_queries(3):  # the key, its scopes, the page
        _page(cast, limit=10)
