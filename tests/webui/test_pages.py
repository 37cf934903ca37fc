"""Home, browse, review and the graph's data, each through its operations."""

from __future__ import annotations

import json
import re

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
    (following,) = re.findall(r'<a href="(/blocks\?[^"]+)" rel="next">', first)
    following = following.replace("&amp;", "&")
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
    assert [n["degree"] for n in data["nodes"]] == [1, 1]
    (edge,) = data["edges"]  # node positions, then the class
    assert {data["nodes"][i]["id"] for i in edge[:2]} == {s.plan, s.notes} and edge[2] == "topical"
    filtered = json.loads(client.get(f"/graph/{s.plan}/data", {"min_confidence": "0.5"}).content)
    assert [n["id"] for n in filtered["nodes"]] == [s.plan]


def test_it_shows_the_two_texts_of_a_flag_side_by_side_escaped(cast: Cast) -> None:
    s = seed(cast)
    changed = {"content": "Deploys Tuesday <b>at noon</b>."}
    cast.owner.post("/api/manage", {"action": "update", "id": s.twin, "fields": changed})
    html = text(signed_in(cast.owner.key).get("/review"))
    assert '<table class="diff"' in html
    assert "Deploys&nbsp;on&nbsp;Tuesdays." in html  # the twin's text, left
    assert "&lt;b&gt;at" in html and "<b>at" not in html  # the block's text, escaped


def test_it_merges_a_flagged_block_into_its_twin(cast: Cast) -> None:
    s = seed(cast)
    client = signed_in(cast.owner.key)
    assert 'value="merge"' in text(client.get("/review"))
    assert client.post(f"/review/flags/{s.flag}", {"action": "merge"}).status_code == 302
    assert Block.objects.get(pk=s.plan).content == "Deploys on Tuesdays.\n\nDeploys Tuesday."
    assert Block.objects.get(pk=s.twin).archived


def test_only_a_server_admin_switches_dream_mode(cast: Cast) -> None:
    from ctx import services
    from dream.models import DreamMode

    seed(cast)
    owner = signed_in(cast.owner.key)
    assert 'action="/review/mode"' not in text(owner.get("/review"))
    refused = owner.post("/review/mode", {"mode": "off"})
    assert refused.status_code == 403 and not DreamMode.objects.filter(mode="off").exists()
    ops = services.tenant_create(name="ops")
    _, root = services.key_create(tenant=ops, name="root", home="ops:main", is_admin=True)
    admin = signed_in(root)
    assert 'action="/review/mode"' in text(admin.get("/review"))
    assert admin.post("/review/mode", {"mode": "throttled"}).status_code == 302
    assert "Dream Mode is <strong>throttled</strong>" in text(admin.get("/review"))


def test_it_suggests_lexical_matches_as_you_type(cast: Cast) -> None:
    seed(cast)
    cast.outsider.store(category="ops", title="Globex deploys", content="Deploys on Fridays.")
    client = signed_in(cast.owner.key)
    found = json.loads(client.get("/search/suggest", {"q": "deploys"}).content)
    titles = {r["title"] for r in found["results"]}
    assert "Deploy plan" in titles and "Globex deploys" not in titles  # the key's scopes only
    assert json.loads(client.get("/search/suggest", {"q": "x\x00"}).content)["results"] == []
    page = text(client.get("/search"))
    assert 'id="suggest"' in page and "ui-search" in page and 'name="as_of"' in page


def test_it_filters_search_and_browse_by_tags(cast: Cast) -> None:
    cast.owner.store(category="ops", title="Tagged", content="Deploy window.", tags=["prod"])
    cast.owner.store(category="ops", title="Untagged", content="Deploy window too.")
    client = signed_in(cast.owner.key)
    hits = text(client.get("/search", {"q": "deploy window", "tags": "prod"}))
    assert "Tagged" in hits and "Untagged" not in hits
    listed = text(client.get("/blocks", {"tags": "prod"}))
    assert "Tagged" in listed and "Untagged" not in listed


def test_it_archives_moves_and_restores_blocks_in_bulk(cast: Cast) -> None:
    s = seed(cast)
    foreign = cast.outsider.store(category="x", title="Globex note", content="Theirs.")
    client = signed_in(cast.owner.key)
    moved = client.post(
        "/blocks/bulk", {"action": "category", "category": "release", "id": [s.plan, s.notes]}
    )
    assert moved.status_code == 302
    assert set(Block.objects.filter(category="release").values_list("title", flat=True)) == {
        "Deploy plan",
        "Deploy notes",
    }
    back = client.post("/blocks/bulk", {"action": "archive", "id": [s.plan, foreign["id"]]})
    assert "done=1%2F2%2Farchive" in back["Location"]  # the foreign id: not done, not touched
    assert Block.objects.get(pk=s.plan).archived
    assert not Block.objects.get(pk=foreign["id"]).archived
    assert "1 of 2 chosen blocks archived." in text(client.get(back["Location"]))
    archived = text(client.get("/blocks", {"archived": "true"}))
    assert "Deploy plan" in archived and "Deploy notes" not in archived
    client.post("/blocks/bulk", {"action": "restore", "id": [s.plan]})
    assert not Block.objects.get(pk=s.plan).archived
    crafted = text(client.get("/blocks", {"done": "<b>hacked</b>"}))
    assert "hacked" not in crafted
    odd = client.post("/blocks/bulk", {"action": "archive", "id": [], "back": "x=1\r\nSet: y"})
    assert odd.status_code == 302 and odd["Location"] == "/blocks?done=0%2F0%2Farchive"


def test_it_shows_and_builds_each_scopes_topic_map(cast: Cast) -> None:
    seed(cast)
    client = signed_in(cast.owner.key)
    before = text(client.get("/topics"))
    assert "acme:main" in before and "No topic map yet." in before and "globex" not in before
    assert client.post("/topics/build", {"scope": "acme:main"}).status_code == 302
    after = text(client.get("/topics"))
    assert "Deploy plan" in after and "Rebuild now" in after
    reader = text(signed_in(cast.reader.key).get("/topics"))
    assert "Build it now" not in reader  # reads, may not write


def test_it_sorts_the_list_by_title_and_by_change(cast: Cast) -> None:
    for title in ("Zulu", "Alpha", "Mike"):
        cast.owner.store(category="ops", title=title, content=f"{title} text.")
    client = signed_in(cast.owner.key)
    newest = text(client.get("/blocks"))
    assert newest.index(">Mike<") < newest.index(">Alpha<") < newest.index(">Zulu<")
    assert 'href="/blocks?order=title"' in newest and 'href="/blocks?order=oldest"' in newest
    by_title = text(client.get("/blocks", {"order": "title"}))
    assert by_title.index(">Alpha<") < by_title.index(">Mike<") < by_title.index(">Zulu<")
    assert 'aria-sort="ascending"' in by_title


def test_it_passes_the_period_to_the_query(cast: Cast) -> None:
    cast.owner.store(category="log", title="Old standup", content="Standup notes.",
                     source_time="2025-01-05T09:00:00Z")  # fmt: skip
    cast.owner.store(category="log", title="New standup", content="Standup notes again.",
                     source_time="2025-03-05T09:00:00Z")  # fmt: skip
    client = signed_in(cast.owner.key)
    page = text(client.get("/search", {"q": "standup notes", "since": "2025-03-01"}))
    assert "New standup" in page and "Old standup" not in page
    wrong = client.get("/search", {"q": "standup", "since": "2025-03-02", "until": "2025-03-01"})
    assert wrong.status_code == 400 and "&#x27;since&#x27; is after" in text(wrong)
