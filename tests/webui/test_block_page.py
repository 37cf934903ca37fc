"""The block page: sanitized Markdown, metadata, links and the supersession chain; edit,
archive and restore through the operations; a foreign id answers like a missing one."""

from __future__ import annotations

import uuid

import pytest

from ctx.models import Block
from dream.models import Link
from tests.conftest import Cast
from tests.webui.conftest import page_text, signed_in, text

pytestmark = pytest.mark.django_db

HOSTILE = (
    "# Plan\n\n**bold** and <script>window.pwned = 1</script>\n\n"
    '<img src="x" onerror="window.pwned = 2">\n\n'
    "[click me](javascript:window.pwned=3) and [docs](https://example.org/a)\n"
)


def test_it_renders_markdown_and_runs_none_of_the_markup_in_it(cast: Cast) -> None:
    found = cast.owner.store(title="Hostile", content=HOSTILE)
    html = text(signed_in(cast.owner.key).get(f"/blocks/{found['id']}"))
    content = html[html.index('<div class="content">') : html.index("</article>")]
    assert "<h1>Plan</h1>" in content and "<strong>bold</strong>" in content
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in content
    assert "<script" not in content and "<img" not in content
    assert 'href="javascript' not in content  # left as text, not a link
    assert '<a href="https://example.org/a" rel="noopener noreferrer nofollow">docs</a>' in content


def test_it_shows_metadata_tags_links_and_the_supersession_chain(cast: Cast) -> None:
    old = cast.owner.store(title="Old plan", content="Version one.")
    new = cast.owner.store(
        title="New plan", content="Version two.", tags=["plans"], metadata={"owner": "ana"}
    )
    Block.objects.filter(pk=old["id"]).update(superseded_by_id=new["id"])
    scope = Block.objects.get(pk=new["id"]).scope
    Link.objects.create(
        scope=scope, source_id=new["id"], target_id=old["id"], link_class="supersedes",
        confidence=0.9, raw_confidence=0.9, origin="dream",
    )  # fmt: skip
    client = signed_in(cast.owner.key)
    html = text(client.get(f"/blocks/{new['id']}"))
    assert "#plans" in html and "<dt>owner</dt><dd>ana</dd>" in html
    assert f'→ <a href="/blocks/{old["id"]}">Old plan</a>' in html
    assert "Replaces:" in html and "confidence 0.9" in html
    older = text(client.get(f"/blocks/{old['id']}"))
    assert "Replaced by:" in older and f'<a href="/blocks/{new["id"]}">New plan</a>' in older


def test_it_lists_the_dates_found_in_the_text(cast: Cast) -> None:
    found = cast.owner.store(title="Trip", content="We fly on 14 March 2025 and return 2025-03-21.")
    html = text(signed_in(cast.owner.key).get(f"/blocks/{found['id']}"))
    assert '<time datetime="2025-03-14">2025-03-14</time>, <time datetime="2025-03-21">' in html


def test_it_answers_a_foreign_id_exactly_like_a_missing_one(cast: Cast) -> None:
    foreign = cast.outsider.store(title="Globex secret plan", content="Only globex.")
    client = signed_in(cast.owner.key)
    seen = client.get(f"/blocks/{foreign['id']}")
    missing = client.get(f"/blocks/{uuid.uuid4()}")
    assert seen.status_code == missing.status_code == 404
    assert page_text(seen) == page_text(missing)
    assert "Globex" not in text(seen)
    for suffix in ("/data", ""):
        assert client.get(f"/graph/{foreign['id']}{suffix}").status_code == 404
    assert client.post(f"/blocks/{foreign['id']}/archive").status_code == 404
    assert not Block.objects.get(pk=foreign["id"]).archived


def test_it_edits_a_block_and_search_finds_the_new_text(cast: Cast) -> None:
    found = cast.owner.store(title="Standup", content="At nine.", tags=["team"])
    client = signed_in(cast.owner.key)
    form = text(client.get(f"/blocks/{found['id']}/edit"))
    assert 'value="Standup"' in form and "At nine.</textarea>" in form
    data = {
        "title": "Standup time", "category": "notes", "type": "knowledge", "tags": "team, daily",
        "content": "At half past nine, in the aquarium room.", "metadata": "{}",
        "valid_from": "", "valid_to": "",
    }  # fmt: skip
    resp = client.post(f"/blocks/{found['id']}/edit", data)
    assert resp.status_code == 302 and resp["Location"] == f"/blocks/{found['id']}"
    block = Block.objects.get(pk=found["id"])
    assert block.title == "Standup time" and block.tags == ["team", "daily"]
    assert "Standup time" in text(client.get("/search", {"q": "aquarium"}))


def test_it_shows_an_edit_the_operation_refuses(cast: Cast) -> None:
    found = cast.owner.store(title="Standup", content="At nine.")
    client = signed_in(cast.owner.key)
    data = {"title": "x", "category": "notes", "type": "knowledge", "content": "y",
            "metadata": "[1]", "tags": ""}  # fmt: skip
    resp = client.post(f"/blocks/{found['id']}/edit", data)
    assert resp.status_code == 400 and 'role="alert"' in text(resp)
    assert Block.objects.get(pk=found["id"]).content == "At nine."


def test_it_archives_and_restores_a_block(cast: Cast) -> None:
    found = cast.owner.store(title="Old habit", content="Tea at four.")
    client = signed_in(cast.owner.key)
    resp = client.post(f"/blocks/{found['id']}/archive")
    assert resp.status_code == 200 and "Archived “Old habit”" in text(resp)
    assert client.get(f"/blocks/{found['id']}").status_code == 404
    assert "Old habit" not in text(client.get("/search", {"q": "tea"}))
    back = client.post(f"/blocks/{found['id']}/restore")
    assert back.status_code == 302 and client.get(back["Location"]).status_code == 200
    assert "Old habit" in text(client.get("/search", {"q": "tea"}))


def test_it_offers_no_edit_to_a_reader_and_refuses_one(cast: Cast) -> None:
    found = cast.owner.store(title="Shared", content="Read only for the reader.")
    client = signed_in(cast.reader.key)
    html = text(client.get(f"/blocks/{found['id']}"))
    assert "Read only for the reader." in html and "/edit" not in html
    resp = client.post(f"/blocks/{found['id']}/archive")
    assert resp.status_code == 403
    assert not Block.objects.get(pk=found["id"]).archived


def test_it_shows_earlier_versions_and_restores_one(cast: Cast) -> None:
    found = cast.owner.store(title="Standup", content="At nine.")
    client = signed_in(cast.owner.key)
    fresh = text(client.get(f"/blocks/{found['id']}"))
    assert "No earlier versions" in fresh
    data = {"title": "Standup", "category": "notes", "type": "knowledge", "tags": "",
            "content": "At ten.", "metadata": "{}", "valid_from": "", "valid_to": ""}  # fmt: skip
    assert client.post(f"/blocks/{found['id']}/edit", data).status_code == 302
    html = text(client.get(f"/blocks/{found['id']}"))
    assert "Version 2, written by owner (web)" in html and "At nine.</pre>" in html
    back = client.post(f"/blocks/{found['id']}/history/1/restore")
    assert back.status_code == 302 and back["Location"] == f"/blocks/{found['id']}#history"
    assert Block.objects.get(pk=found["id"]).content == "At nine."
    assert "Version 3" in text(client.get(f"/blocks/{found['id']}"))


def test_it_lets_no_reader_or_outsider_restore_a_version(cast: Cast) -> None:
    found = cast.owner.store(title="Standup", content="At nine.")
    change = {"action": "update", "id": found["id"], "fields": {"content": "At ten."}}
    assert cast.owner.post("/api/manage", change)[0] == 200
    reader = signed_in(cast.reader.key)
    html = text(reader.get(f"/blocks/{found['id']}"))
    assert "At nine.</pre>" in html and "history/1/restore" not in html
    assert reader.post(f"/blocks/{found['id']}/history/1/restore").status_code == 403
    outsider = signed_in(cast.outsider.key)
    foreign = outsider.post(f"/blocks/{found['id']}/history/1/restore")
    missing = outsider.post("/blocks/00000000-0000-4000-8000-000000000000/history/1/restore")
    assert foreign.status_code == missing.status_code == 404
    assert page_text(foreign) == page_text(missing)
    assert Block.objects.get(pk=found["id"]).content == "At ten."
