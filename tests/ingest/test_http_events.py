"""POST /api/sessions/events and GET /api/sessions/{id}/snapshot: the hook event log of a live
session (duplicates of the last five skipped, a cap dropping the lowest priority first), its
searchable event blocks, and the resume snapshot that fits in 2 KB."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from ingest.models import SessionEvent
from retrieval import indexing
from tests.conftest import Api, Cast
from tests.ingest.support import AWS_KEY

pytestmark = pytest.mark.django_db

SESSION = {"tool": "claude-code", "external_id": "5b1d0c6e", "project_root": "/home/dev/shop"}


def ev(kind: str, text: str, minute: int = 0, **data: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": kind, "text": text, "at": f"2026-03-01T10:{minute:02d}:00Z"}
    return {**body, "data": data} if data else body


def record(api: Api, *events: dict[str, Any], **extra: Any) -> dict[str, Any]:
    status, data = api.post("/api/sessions/events", {**SESSION, "events": list(events), **extra})
    assert status == 200, data
    return data


def snapshot(api: Api, sid: int | str, **params: Any) -> tuple[int, Any]:
    return api.get(f"/api/sessions/{sid}/snapshot", **params)


def test_it_stores_events_and_finds_them_through_api_query(cast: Cast) -> None:
    data = record(
        cast.owner,
        ev("user_prompt", "Why does the Stripe webhook signature check fail in staging?"),
        ev("file_read", "src/payments/webhooks.py", 1, path="src/payments/webhooks.py"),
        ev("error", "Bash: SignatureVerificationError: no signatures found", 2),
    )
    assert (data["stored"], data["duplicates"], data["dropped"]) == (3, 0, 0)
    assert data["session"]["external_id"] == "5b1d0c6e" and data["blocks"] == 1
    blocks = [str(b.pk) for b in Block.objects.filter(category="sessions/claude-code/events")]
    assert indexing.embed_blocks(blocks) == 1
    status, found = cast.owner.post("/api/query", {"query": "stripe webhook signature error"})
    assert status == 200, found
    top = found["sources"][0]
    assert top["type"] == "transcript" and top["category"] == "sessions/claude-code/events"
    assert top["metadata"]["session_id"] == data["session"]["id"]
    assert "SignatureVerificationError" in top["preview"]


def test_it_records_into_the_session_an_import_writes_into(cast: Cast) -> None:
    first = record(cast.owner, ev("user_prompt", "add a retry to the upload"))
    again = record(cast.owner, ev("file_edit", "src/upload.py", 1, path="src/upload.py"))
    assert first["session"]["id"] == again["session"]["id"]
    _, listed = cast.owner.get("/api/sessions")
    assert [s["preview"] for s in listed["sessions"]] == ["add a retry to the upload"]


def test_it_skips_a_duplicate_of_the_last_five_events(cast: Cast) -> None:
    read = ev("file_read", "src/app.py", 0, path="src/app.py")
    record(cast.owner, read, ev("git", "git status", 1))
    later = ev("file_read", "src/app.py", 5, path="src/app.py")  # the same, another time
    assert record(cast.owner, later)["duplicates"] == 1
    others = [ev("git", f"git log -n {n}", n) for n in range(1, 6)]
    assert record(cast.owner, *others)["stored"] == 5
    data = record(cast.owner, read)  # no longer among the last five
    assert (data["stored"], data["duplicates"]) == (1, 0)
    assert SessionEvent.objects.count() == 8


def test_it_drops_the_lowest_priority_first_past_the_cap(cast: Cast, settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_SESSION_EVENTS_MAX": 10}
    decisions = [ev("decision", f"use psycopg {n}", n) for n in range(3)]  # the oldest
    reads = [ev("file_read", f"docs/page{n}.md", 10 + n, path=f"docs/page{n}.md") for n in range(4)]
    errors = [ev("error", f"Bash: exit {n}", 20 + n) for n in range(5)]
    data = record(cast.owner, *decisions, *reads, *errors)
    assert (data["stored"], data["dropped"]) == (12, 2)
    kept = set(SessionEvent.objects.values_list("text", flat=True))
    assert kept == {"docs/page2.md", "docs/page3.md"} | {e["text"] for e in decisions + errors}
    _, snap = snapshot(cast.owner, data["session"]["id"])
    assert (snap["events"], snap["dropped"]) == (10, 2)
    assert "page0.md" not in snap["markdown"] and "page3.md" in snap["markdown"]


LAST_PROMPT = ev("user_prompt", "now run the backfill against staging and report the counts", 42)


def _long_session() -> list[dict[str, Any]]:
    path = "src/" + "very/" * 25 + "deep/module_{}.py"
    reads = [ev("file_read", path.format(n), n % 60, path=path.format(n)) for n in range(40)]
    todos = [
        {"content": "write the migration", "status": "completed"},
        {"content": "backfill the old rows", "status": "in_progress"},
        {"content": "drop the legacy column", "status": "pending"},
    ]
    return [
        ev("rule", "Never push to main without running the tests first."),
        ev("decision", "Keep the legacy column until the backfill has run in production."),
        *reads[:20],
        ev("task", "3 tasks", 30, todos=todos),
        ev("file_edit", "migrations/0042_backfill.py", 31, path="migrations/0042_backfill.py"),
        *reads[20:],
        ev("error", "Bash: django.db.utils.OperationalError: lock timeout", 40),
        ev("git", "git commit -m 'backfill in batches'", 41),
        LAST_PROMPT,
    ]


def test_it_fits_the_snapshot_in_2048_bytes_dropping_the_lowest_priorities_first(
    cast: Cast,
) -> None:
    data = record(cast.owner, *_long_session())
    status, snap = snapshot(cast.owner, data["session"]["id"], max_bytes=2048)
    assert status == 200, snap
    text = snap["markdown"]
    assert snap["bytes"] == len(text.encode("utf-8")) <= 2048
    assert snap["omitted"] > 0 and "lower-priority lines left out to fit" in text
    for kept in (
        "> now run the backfill against staging",
        "Never push to main",
        "Keep the legacy column",
        "[~] backfill the old rows",
        "[ ] drop the legacy column",
        "edited `migrations/0042_backfill.py`",
        "OperationalError: lock timeout",
    ):
        assert kept in text, kept
    assert "module_39.py" in text and "module_26.py" not in text  # the oldest reads went
    assert text.index("### Last request") < text.index("### Rules") < text.index("### Tasks")
    again = record(cast.owner, LAST_PROMPT, snapshot=True)  # a duplicate: nothing changes
    assert again["duplicates"] == 1 and again["snapshot"]["markdown"] == text
    resp = cast.owner.client.get(
        f"/api/sessions/{data['session']['id']}/snapshot?format=text",
        headers=cast.owner._headers(),
    )
    assert resp.status_code == 200 and resp.content.decode() == text


def test_it_answers_another_tenants_session_like_a_missing_one(cast: Cast) -> None:
    sid = record(cast.owner, ev("decision", "ship on Friday"))["session"]["id"]
    answers = [
        snapshot(cast.outsider, sid),
        snapshot(cast.owner, sid + 1000),
        snapshot(cast.owner, "nope"),
    ]
    assert {status for status, _ in answers} == {404}
    assert answers[0][1] == answers[1][1] == answers[2][1]
    theirs = record(cast.outsider, ev("decision", "ship on Monday"))  # same tool and id
    assert theirs["session"]["id"] != sid and theirs["session"]["scope"] == "globex:main"
    _, mine = snapshot(cast.owner, sid)
    assert "ship on Friday" in mine["markdown"] and "Monday" not in mine["markdown"]


def test_it_writes_the_open_event_block_once_per_interval_or_at_a_snapshot(
    cast: Cast, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_SESSION_EVENTS_PER_BLOCK": 3}
    assert record(cast.owner, ev("git", "git status"))["blocks"] == 1  # a new page
    assert record(cast.owner, ev("git", "git diff", 1))["blocks"] == 0  # fresh: not again
    block = Block.objects.get(category="sessions/claude-code/events")
    assert "git diff" not in block.content
    assert record(cast.owner, ev("git", "git add -p", 2))["blocks"] == 1  # the page is full
    assert record(cast.owner, ev("git", "git commit", 3))["blocks"] == 1  # page 2 is new
    assert record(cast.owner, ev("git", "git push", 4), snapshot=True)["blocks"] == 1
    pages = dict(
        Block.objects.filter(category="sessions/claude-code/events").values_list(
            "metadata__first_seq", "content"
        )
    )
    assert sorted(pages) == [1, 4]
    assert "git add -p" in pages[1] and "git push" in pages[4]


def test_it_writes_the_open_event_block_when_the_session_ends(cast: Cast, settings: Any) -> None:
    """No later event would bring the flush, and no snapshot is asked for."""
    settings.CTX = {**settings.CTX, "CTX_SESSION_EVENTS_PER_BLOCK": 5}  # the page stays open
    assert record(cast.owner, ev("git", "git status"))["blocks"] == 1  # a new page
    assert record(cast.owner, ev("session", "session resume", 1))["blocks"] == 0  # not an end
    ended = record(cast.owner, ev("session", "session ended (logout)", 2, ended="logout"))
    assert ended["blocks"] == 1 and "snapshot" not in ended
    block = Block.objects.get(category="sessions/claude-code/events")
    assert "session resume" in block.content and "session ended (logout)" in block.content


def test_it_scrubs_credentials_from_events(cast: Cast) -> None:
    data = record(cast.owner, ev("user_prompt", f"deploy with AWS key {AWS_KEY} please"))
    _, snap = snapshot(cast.owner, data["session"]["id"])
    assert AWS_KEY not in snap["markdown"] and "[redacted:aws-key]" in snap["markdown"]
    assert not SessionEvent.objects.filter(text__contains=AWS_KEY).exists()


def test_it_bounds_the_request(cast: Cast) -> None:
    many = [ev("git", f"git log {n}") for n in range(101)]
    too_many = cast.owner.post("/api/sessions/events", {**SESSION, "events": many})
    assert too_many[0] == 413
    long = cast.owner.post("/api/sessions/events", {**SESSION, "events": [ev("git", "x" * 2001)]})
    assert long[0] == 413
    status, bad = cast.owner.post("/api/sessions/events", {**SESSION, "events": [ev("nap", "z")]})
    assert status == 400 and bad["error"]["details"]["field"] == "kind"
    assert snapshot(cast.owner, 1, max_bytes=100)[0] == 400
    assert not SessionEvent.objects.exists()


def test_it_deletes_the_events_and_their_blocks_with_the_session(cast: Cast) -> None:
    sid = record(cast.owner, ev("decision", "ship on Friday"))["session"]["id"]
    resp = cast.owner.client.delete(f"/api/sessions/{sid}", headers=cast.owner._headers())
    assert resp.status_code == 200
    assert not SessionEvent.objects.exists()
    assert not Block.objects.filter(category="sessions/claude-code/events").exists()
    data = record(cast.owner, ev("decision", "ship on Monday"))
    assert data["skipped"] == "deleted" and data["stored"] == 0


def test_it_records_and_snapshots_under_the_runtime_role(cast: Cast, runtime_role: None) -> None:
    data = record(cast.owner, ev("decision", "ship on Friday"), snapshot=True)
    assert data["stored"] == 1 and data["blocks"] == 1
    assert "ship on Friday" in data["snapshot"]["markdown"]
    assert snapshot(cast.outsider, data["session"]["id"])[0] == 404
    theirs = record(cast.outsider, ev("decision", "ship on Monday"), snapshot=True)
    assert "Friday" not in theirs["snapshot"]["markdown"]
