"""Home, browse, review and the graph's data, each through its operations."""

from __future__ import annotations

import json

import pytest

from ctx.models import Block
from dream.models import GuardFlag, Link
from tests.conftest import Cast
from tests.webui.cast import seed
from tests.webui.conftest import signed_in, text

pytestmark = pytest.mark.django_db


def test_it_shows_counts_dream_mode_and_the_latest_blocks_at_home(cast: Cast) -> None:
    seed(cast)
    cast.owner.store(category="food", title="Ramen", content="Broth.", scope="acme:team")
    html = text(signed_in(cast.owner.key).get("/"))
    assert '<p class="big">4</p>' in html
    assert '<th scope="row">acme:main</th><td>3</td>' in html
    assert '<a href="/blocks?category=ops">ops</a></th><td>3</td>' in html
    assert "Mode <strong>" in html and "1 open guard flag (near_copy: 1)" in html
    assert "<dt>due now</dt>" in html  # the queue in words, not API keys
    assert html.count("waiting for embedding") == 1  # the backlog once, on the Blocks card
    assert html.index(">Ramen</a>") < html.index(">Deploy plan</a>")  # newest first


def test_it_browses_a_page_at_a_time_with_filters(cast: Cast) -> None:
    for i in range(55):
        cast.owner.store(category="bulk", title=f"Note {i:02}", content=f"Number {i}.")
    cast.owner.store(category="other", title="Elsewhere", content="x", scope="acme:team")
    client = signed_in(cast.owner.key)
    first = text(client.get("/blocks", {"category": "bulk"}))
    assert first.count('<th scope="row"><a href="/blocks/') == 50 and "Elsewhere" not in first
    following = first[first.index('<a href="/blocks?') + 9 :].split('"')[0].replace("&amp;", "&")
    assert "category=bulk" in following and "cursor=" in following
    second = text(client.get(following))
    assert second.count('<th scope="row"><a href="/blocks/') == 5 and 'rel="next"' not in second
    team = text(client.get("/blocks", {"scope": "acme:team"}))
    assert "Elsewhere" in team and "Note 01" not in team


def test_it_confirms_and_deletes_review_links(cast: Cast) -> None:
    s = seed(cast)
    client = signed_in(cast.owner.key)
    html = text(client.get("/review"))
    assert f'action="/review/links/{s.link}"' in html and "similarity 0.97" in html
    resp = client.post(f"/review/links/{s.link}", {"action": "confirm"})
    assert resp.status_code == 302 and Link.objects.get(pk=s.link).pinned
    assert f'action="/review/links/{s.link}"' not in text(client.get("/review"))
    Link.objects.filter(pk=s.link).update(pinned=False)
    client.post(f"/review/links/{s.link}", {"action": "delete"})
    assert not Link.objects.filter(pk=s.link).exists()


def test_it_resolves_a_guard_flag_by_archiving_the_copy(cast: Cast) -> None:
    s = seed(cast)
    client = signed_in(cast.owner.key)
    resp = client.post(f"/review/flags/{s.flag}", {"action": "archive"})
    assert resp.status_code == 302
    assert GuardFlag.objects.get(pk=s.flag).status != "open"
    assert Block.objects.get(pk=s.twin).archived
    assert "No open flags." in text(client.get("/review"))


def test_it_serves_the_ego_graph_as_json(cast: Cast) -> None:
    s = seed(cast)
    client = signed_in(cast.owner.key)
    page = text(client.get(f"/graph/{s.plan}"))
    assert f'data-src="/graph/{s.plan}/data?"' in page and "2 blocks, 1 link." in page
    data = json.loads(client.get(f"/graph/{s.plan}/data").content)
    assert data["root"] == s.plan
    assert {n["id"] for n in data["nodes"]} == {s.plan, s.notes}
    filtered = json.loads(client.get(f"/graph/{s.plan}/data", {"min_confidence": "0.5"}).content)
    assert [n["id"] for n in filtered["nodes"]] == [s.plan]
