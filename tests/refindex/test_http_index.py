"""POST /api/index, GET /api/index/sources, DELETE /api/index/sources/{label}: documents become
titled `reference` blocks in the caller's scope; re-indexing replaces; strangers see nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctx.models import Block
from refindex.models import Chunk, Source, Term
from tests.conftest import Cast
from tests.refindex.support import GUIDE, delete, index, search

pytestmark = pytest.mark.django_db


def test_it_indexes_markdown_into_titled_reference_blocks(cast: Cast) -> None:
    status, data = index(cast.owner, GUIDE, type="markdown")
    assert status == 201 and data["action"] == "created"
    assert data["titles"] == [
        "Guide",
        "Guide > Install",
        "Guide > Configure",
        "Guide > Configure > Database",
        "Guide > Upgrade",
        "Guide > Monitoring",
    ]
    assert data["source"]["scope"] == "acme:main" and data["source"]["chunks"] == 6
    assert data["source"]["bytes"] == len(GUIDE.encode())
    blocks = Block.objects.filter(category="index/guide.md").order_by("title")
    assert {b.type for b in blocks} == {"reference"}
    install = blocks.get(title="Guide > Install")
    assert "## still code, not a heading\n```" in install.content  # the fence stayed whole
    terms = data["source"]["terms"]
    assert "scheduler" in terms  # in 2 of 6 chunks
    assert "webhook" not in terms and "migrations" not in terms  # in 1 chunk each


def test_it_replaces_the_chunks_when_the_label_is_indexed_again(cast: Cast) -> None:
    index(cast.owner, GUIDE)
    kept = Block.objects.get(title="Guide > Install").pk
    gone = Block.objects.get(title="Guide > Configure > Database").pk
    changed = GUIDE.split("### Database")[0] + "## Rollback\n\nRun the old release.\n"
    status, data = index(cast.owner, changed)
    assert status == 200 and data["action"] == "replaced" and data["removed"] == 3
    titles = set(Block.objects.filter(category="index/guide.md").values_list("title", flat=True))
    assert titles == {"Guide", "Guide > Install", "Guide > Configure", "Guide > Rollback"}
    assert Block.objects.get(title="Guide > Install").pk == kept  # unchanged: same block
    assert not Block.objects.filter(pk=gone).exists()
    assert Source.objects.count() == 1 and Chunk.objects.count() == 4
    _, found = search(cast.owner, "pgvector")
    assert found["results"][0]["hits"] == []
    _, again = index(cast.owner, changed)
    assert again["action"] == "unchanged" and again["written"] == 0


def test_it_chunks_json_arrays_in_batches_titled_by_identity(cast: Cast) -> None:
    users = [{"name": f"user{i}", "bio": "likes long walks " * 20} for i in range(30)]
    doc = json.dumps({"users": users, "version": 3})
    status, data = index(cast.owner, doc, source="users.json")
    assert status == 201 and data["source"]["type"] == "json"
    batches = [t for t in data["titles"] if t.startswith("users > [")]
    assert len(batches) > 1 and batches[0].startswith("users > [0-")
    assert batches[0].split("] ", 1)[1].startswith("user0, user1, user2")
    assert all(len(b.content.encode()) <= 4096 for b in Block.objects.filter(type="reference"))
    assert "users.json" in data["titles"]  # the small members of the root


def test_it_lists_sources_of_readable_scopes_only(cast: Cast) -> None:
    index(cast.owner, GUIDE)
    index(cast.outsider, "Globex notes about invoices.\n\nMore about invoices.", source="g.txt")
    _, mine = cast.owner.get("/api/index/sources")
    assert [s["label"] for s in mine["sources"]] == ["guide.md"]
    _, theirs = cast.outsider.get("/api/index/sources")
    assert [s["label"] for s in theirs["sources"]] == ["g.txt"]


def test_it_deletes_a_source_with_its_blocks(cast: Cast) -> None:
    index(cast.owner, GUIDE, source="docs/guide.md")  # a label may hold slashes
    status, data = delete(cast.owner, "docs/guide.md")
    assert status == 200 and data["action"] == "deleted" and data["blocks"] == 6
    assert not Block.objects.filter(type="reference").exists()
    assert not Source.objects.exists() and not Term.objects.exists()
    assert cast.owner.get("/api/index/sources")[1]["sources"] == []


def test_it_answers_a_foreign_source_exactly_like_a_missing_one(cast: Cast) -> None:
    index(cast.owner, GUIDE)
    foreign = delete(cast.outsider, "guide.md")
    missing = delete(cast.owner, "nothing.md")
    named = delete(cast.outsider, "guide.md", scope="acme:main")
    assert foreign == missing == named
    assert foreign[0] == 404 and foreign[1]["error"]["message"] == "Source not found."
    assert search(cast.outsider, "scheduler", source="guide.md") == search(
        cast.owner, "scheduler", source="nothing.md"
    )
    _, theirs = search(cast.outsider, "scheduler")
    assert theirs["results"][0]["hits"] == [] and theirs["terms"] == {}
    assert Block.objects.filter(type="reference").count() == 6  # nothing was deleted


def test_it_refuses_a_read_only_key_and_a_foreign_scope(cast: Cast) -> None:
    index(cast.owner, GUIDE)
    assert delete(cast.reader, "guide.md")[0] == 403
    status, _ = index(cast.reader, GUIDE, source="mine.md")
    assert status == 403
    status, body = index(cast.outsider, GUIDE, scope="acme:main")
    assert status == 403 and body["error"]["message"] == "This key cannot write to that scope."
    assert not Source.objects.filter(label="mine.md").exists()


def test_it_answers_an_oversize_document_with_413(cast: Cast, settings: object) -> None:
    settings.CTX = {**settings.CTX, "CTX_INDEX_MAX_BYTES": 2048}  # type: ignore[attr-defined]
    status, data = index(cast.owner, "x" * 2049)
    assert status == 413 and data["error"]["code"] == "payload_too_large"
    assert data["error"]["details"] == {"field": "content", "limit": 2048, "size": 2049}
    assert index(cast.owner, "word " * 400)[0] == 201
    assert not Source.objects.filter(bytes=2049).exists()


def test_it_rejects_unknown_fields_and_bad_types(cast: Cast) -> None:
    status, data = cast.owner.post("/api/index", {"content": "x", "source": "a", "tags": ["no"]})
    assert status == 400 and data["error"]["message"] == "Unknown field 'tags'."
    status, data = index(cast.owner, "x", type="pdf")
    assert status == 400 and data["error"]["details"] == {"field": "type"}
    status, data = index(cast.owner, "{not json", type="json")
    assert status == 400 and data["error"]["message"] == "'content' is not valid JSON."
    assert not Source.objects.exists()


def test_it_takes_a_body_over_the_servers_limit_within_its_own(cast: Cast, settings: Any) -> None:
    """The path's own limit (twice CTX_INDEX_MAX_BYTES plus 64 KiB, refindex/config.py), not
    the server's body limit, bounds an index request; above its own, 413."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 70_000  # what CTX_MAX_BODY_BYTES sets
    settings.CTX = {**settings.CTX, "CTX_INDEX_MAX_BYTES": 100_000}  # a body of up to 265,536
    status, data = index(cast.owner, "word " * 20_000)  # 100 KB: over the server's limit
    assert status == 201, data
    status, data = cast.owner.post("/api/store", {"title": "t", "content": "word " * 20_000})
    assert status == 413 and data["error"]["code"] == "payload_too_large"
    status, data = index(cast.owner, "word " * 60_000, source="big.md")  # 300 KB
    assert status == 413 and data["error"]["code"] == "payload_too_large"
    assert list(Source.objects.values_list("label", flat=True)) == ["guide.md"]


def test_it_refuses_to_overwrite_blocks_stored_by_hand_and_keeps_the_old_chunks(
    cast: Cast,
) -> None:
    index(cast.owner, GUIDE)
    before = sorted(Block.objects.values_list("pk", "content"))
    cast.owner.store(category="index/notes.md", title="Mine", content="my own note")
    status, data = index(cast.owner, "# Notes\n\nText.", source="notes.md")
    assert status == 409 and "index/notes.md" in data["error"]["message"]
    assert Block.objects.get(title="Mine").content == "my own note"
    assert not Source.objects.filter(label="notes.md").exists()
    assert sorted(Block.objects.exclude(title="Mine").values_list("pk", "content")) == before


def test_it_extracts_no_facts_from_an_indexed_document(
    cast: Cast, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CELERY_BROKER_URL = ""  # no broker: extraction runs in-process after the commit
    # A log saying "I prefer…" is nobody's statement: memory leaves indexed chunks alone,
    # while the same sentence stored as a note becomes a preference.
    text = "## Session log\n\nI prefer Vim over VS Code.\n"
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = cast.owner.post("/api/index", {"content": text, "source": "log"})
    assert status in (200, 201)
    assert cast.owner.get("/api/facts")[1]["facts"] == []
    with django_capture_on_commit_callbacks(execute=True):
        note = {"category": "notes", "title": "editor", "content": text}
        assert cast.owner.post("/api/store", note)[0] == 201
    assert [f["value"] for f in cast.owner.get("/api/facts")[1]["facts"]] != []
