"""GET and DELETE /api/sessions/{id}: one session with its messages page by page; deletion
removes messages, windows and their embeddings, and leaves a tombstone."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from ingest.models import Message, Session, Window
from retrieval import indexing
from retrieval.models import BlockChunk
from tests.conftest import Cast
from tests.ingest.support import batch, by_id, imported, session, turns

pytestmark = pytest.mark.django_db


@pytest.fixture
def sid(cast: Cast, django_capture_on_commit_callbacks: Any) -> int:
    job = imported(
        cast.owner, batch(session(messages=turns(12))), django_capture_on_commit_callbacks
    )
    return int(by_id(job)["s-1"]["id"])


def test_it_shows_a_session_and_its_messages_in_pages(cast: Cast, sid: int) -> None:
    status, data = cast.owner.get(f"/api/sessions/{sid}", limit=5)
    assert status == 200 and data["session"]["external_id"] == "s-1"
    assert [m["index"] for m in data["messages"]] == [0, 1, 2, 3, 4]
    assert data["messages"][1] == {
        "index": 1,
        "role": "assistant",
        "text": "topic message 1",
        "timestamp": "2026-03-01T10:01:00+00:00",
        "tool_calls": [],
        "flags": [],
        "redacted": [],
    }
    _, page = cast.owner.get(f"/api/sessions/{sid}", limit=5, offset=10)
    assert [m["index"] for m in page["messages"]] == [10, 11]
    _, tail = cast.owner.get(f"/api/sessions/{sid}", limit=3, latest="true")
    assert [m["index"] for m in tail["messages"]] == [9, 10, 11] and tail["offset"] == 9


def test_it_answers_a_foreign_missing_or_malformed_id_with_the_same_404(
    cast: Cast, sid: int
) -> None:
    answers = [
        cast.outsider.get(f"/api/sessions/{sid}"),
        cast.owner.get(f"/api/sessions/{sid + 1000}"),
        cast.owner.get("/api/sessions/not-a-number"),
    ]
    assert {status for status, _ in answers} == {404}
    assert answers[0][1] == answers[1][1] == answers[2][1]
    assert answers[0][1]["error"]["message"] == "Session not found."


def _delete(api: Any, sid: int) -> tuple[int, Any]:
    resp = api.client.delete(f"/api/sessions/{sid}", headers=api._headers())
    return resp.status_code, resp.json()


def test_it_deletes_messages_windows_and_their_embeddings(cast: Cast, sid: int) -> None:
    windows = list(Window.objects.values_list("block_id", flat=True))
    assert indexing.embed_blocks([str(b) for b in windows]) == len(windows) == 2
    assert BlockChunk.objects.filter(block_id__in=windows).exists()
    status, data = _delete(cast.owner, sid)
    assert status == 200 and data == {
        "success": True,
        "action": "deleted",
        "id": sid,
        "messages": 12,
        "windows": 2,
    }
    assert not Message.objects.exists() and not Window.objects.exists()
    assert not Block.objects.filter(pk__in=windows).exists()
    assert not BlockChunk.objects.filter(block_id__in=windows).exists()
    assert cast.owner.get(f"/api/sessions/{sid}")[0] == 404
    assert cast.owner.get("/api/sessions")[1]["sessions"] == []


def test_it_does_not_resurrect_a_deleted_session_unless_asked(
    cast: Cast, sid: int, django_capture_on_commit_callbacks: Any
) -> None:
    _delete(cast.owner, sid)
    again = imported(
        cast.owner, batch(session(messages=turns(14))), django_capture_on_commit_callbacks
    )
    row = by_id(again)["s-1"]
    assert (row["status"], row["reason"], row["messages"]) == (
        "skipped",
        "deleted",
        {"skipped": 14},
    )
    assert not Message.objects.exists()
    restored = imported(
        cast.owner,
        batch(session(messages=turns(14)), restore_deleted=True),
        django_capture_on_commit_callbacks,
    )
    assert by_id(restored)["s-1"]["status"] == "restored"
    assert Session.objects.get(pk=sid).message_count == 14
    assert cast.owner.get(f"/api/sessions/{sid}")[0] == 200


def test_it_refuses_a_reader_and_hides_the_session_from_an_outsider(cast: Cast, sid: int) -> None:
    assert _delete(cast.reader, sid)[0] == 403  # reads acme:main, writes nothing
    status, data = _delete(cast.outsider, sid)
    assert status == 404 and data["error"]["message"] == "Session not found."
    assert Message.objects.count() == 12
