"""POST /api/sessions/import: a batch becomes a job that imports it in one transaction."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ctx import selectors
from ctx.models import Block
from ingest.models import ImportJob, Message, Session, Source, Window
from rls import context as rls
from tests.conftest import Cast
from tests.ingest.support import (
    AWS_KEY,
    batch,
    by_id,
    imported,
    message,
    run_import,
    session,
    turns,
)

pytestmark = pytest.mark.django_db


def _texts(external_id: str = "s-1") -> list[str]:
    rows = Message.objects.filter(session__external_id=external_id).order_by("index")
    return list(rows.values_list("text", flat=True))


def _windows(external_id: str = "s-1") -> list[tuple[int, int]]:
    rows = Window.objects.filter(session__external_id=external_id).order_by("first_index")
    return list(rows.values_list("first_index", "last_index"))


def test_it_answers_202_with_a_job_and_imports_messages_and_windows(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        status, data = cast.owner.post("/api/sessions/import", batch(session(messages=turns(10))))
    assert status == 202 and data["job"]["scope"] == "acme:main", data
    _, got = cast.owner.get(f"/api/jobs/{data['job']['id']}")
    job = got["job"]
    assert job["status"] == "done" and job["messages"] == 10
    assert by_id(job)["s-1"]["status"] == "new"
    assert by_id(job)["s-1"]["messages"] == {"new": 10, "revised": 0, "unchanged": 0, "removed": 0}
    stored = Session.objects.get(external_id="s-1")
    assert stored.message_count == 10 and stored.project_root == "/home/dev/shop-app"
    assert stored.preview == "topic message 8"  # the last user prompt
    assert _windows() == [(0, 7), (2, 9)]  # 8 messages, stride 4, the tail window ends at 9
    block = Block.objects.get(title__endswith=": 1-8")
    assert block.type == "transcript" and block.category == "sessions/claude-code"
    assert block.content.startswith("[2026-03-01 10:00] user: topic message 0\n\n[2026-03-01")
    assert block.metadata["session_id"] == stored.pk and block.source_time is not None


def test_it_accepts_the_contextos_shape(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    body = {
        "platform": "cursor",
        "session_id": "ctxos-1",
        "messages": [
            {"role": "user", "content": "How do I rotate the logs?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Use logrotate."}]},
        ],
    }
    job = imported(cast.owner, body, django_capture_on_commit_callbacks)
    assert by_id(job)["ctxos-1"]["messages"]["new"] == 2
    assert _texts("ctxos-1") == ["How do I rotate the logs?", "Use logrotate."]
    again = imported(cast.owner, body, django_capture_on_commit_callbacks)
    assert by_id(again)["ctxos-1"]["messages"] == {
        "new": 0,
        "revised": 0,
        "unchanged": 2,
        "removed": 0,
    }
    assert Message.objects.filter(session__external_id="ctxos-1").count() == 2


def test_it_imports_the_same_batch_twice_without_duplicates(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    body = batch(session(messages=turns(12)))
    imported(cast.owner, body, django_capture_on_commit_callbacks)
    blocks = set(Block.objects.values_list("id", "content_hash"))
    again = imported(cast.owner, body, django_capture_on_commit_callbacks)
    assert by_id(again)["s-1"]["status"] == "unchanged"
    assert by_id(again)["s-1"]["messages"]["unchanged"] == 12
    assert set(Block.objects.values_list("id", "content_hash")) == blocks
    assert Message.objects.count() == 12


def test_it_stores_every_field_of_a_message_as_sent(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    """The messages travel to the database as one JSON document (ctx.bulk.insert_json_rows): array
    elements with quotes, braces and commas, an offset time and a missing one arrive intact."""
    calls = ['Bash: grep -n "a, b" {src}', "Read: C:\\logs\\app.log", "NULL"]
    sent = [
        message(
            0, 'Say "hi" \u2014 {ok}, caf\u00e9 \U0001f600', tool_calls=calls, flags=["revised"]
        ),
        message(1, "", role="tool", external_id="toolu_1", timestamp="2026-03-01T12:30:00+02:00"),
        {"index": 2, "role": "assistant", "text": "no time"},
    ]
    imported(cast.owner, batch(session(messages=sent)), django_capture_on_commit_callbacks)
    rows = Message.objects.order_by("index")
    first, second, third = rows
    assert first.text == sent[0]["text"] and first.tool_calls == calls
    assert first.flags == ["revised"] and first.redacted == [] and first.external_id == ""
    assert second.text == "" and second.role == "tool" and second.external_id == "toolu_1"
    assert second.timestamp == datetime(2026, 3, 1, 10, 30, tzinfo=UTC)
    assert third.timestamp is None and third.tool_calls == []
    assert {m.scope_id for m in rows} == {Session.objects.get().scope_id}
    assert [len(m.content_hash) for m in rows] == [64, 64, 64]


def test_it_imports_under_the_runtime_role_in_the_tenants_context(
    cast: Cast, runtime_role: None, django_capture_on_commit_callbacks: Any
) -> None:
    """The one-statement message insert passes the row-level policies as the server's role,
    here held to the uploading tenant's scopes (the worker itself runs as the system)."""
    principal = selectors.principal_for_key(cast.owner.key or "")
    assert principal is not None
    with django_capture_on_commit_callbacks(execute=False) as queued:
        status, _ = cast.owner.post("/api/sessions/import", batch(session(messages=turns(10))))
    assert status == 202 and queued
    with rls.using(rls.for_principal(principal)):
        for callback in queued:
            callback()
        assert len(_texts()) == 10 and _windows() == [(0, 7), (2, 9)]
        assert ImportJob.objects.get().status == "done"


def test_it_appends_new_messages_and_rewrites_only_the_tail(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    imported(cast.owner, batch(session(messages=turns(10))), django_capture_on_commit_callbacks)
    first = Block.objects.get(title__endswith=": 1-8")
    job = imported(
        cast.owner, batch(session(messages=turns(4, start=10))), django_capture_on_commit_callbacks
    )
    assert by_id(job)["s-1"]["status"] == "updated"
    assert by_id(job)["s-1"]["messages"]["new"] == 4
    assert _windows() == [(0, 7), (4, 11), (6, 13)]
    assert Block.objects.get(pk=first.pk).content_hash == first.content_hash  # kept, not rewritten
    assert not Block.objects.filter(title__endswith=": 3-10").exists()  # the old tail window
    assert Block.objects.filter(type="transcript").count() == 3


def test_it_replaces_a_revised_message_in_place(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    imported(cast.owner, batch(session(messages=turns(3))), django_capture_on_commit_callbacks)
    grown = message(2, "topic message 2, and the rest of the answer", flags=["revised"])
    job = imported(cast.owner, batch(session(messages=[grown])), django_capture_on_commit_callbacks)
    assert by_id(job)["s-1"]["messages"]["revised"] == 1
    assert _texts() == ["topic message 0", "topic message 1", grown["text"]]
    (window,) = Block.objects.filter(type="transcript")
    assert "the rest of the answer" in window.content


def test_it_drops_messages_a_rewritten_session_no_longer_has(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    imported(cast.owner, batch(session(messages=turns(6))), django_capture_on_commit_callbacks)
    rewound = session(messages=turns(3), replaces_earlier=True)
    job = imported(cast.owner, batch(rewound), django_capture_on_commit_callbacks)
    assert by_id(job)["s-1"]["messages"]["removed"] == 3
    assert len(_texts()) == 3 and Session.objects.get().message_count == 3
    assert _windows() == [(0, 2)]


def test_it_merges_the_same_session_uploaded_from_two_machines(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    laptop = session(messages=turns(4), source={"path": "/home/dev/.claude/a.jsonl"})
    desktop = session(messages=turns(6), source={"path": "/Users/dev/.claude/a.jsonl"})
    imported(cast.owner, batch(laptop, machine="laptop"), django_capture_on_commit_callbacks)
    job = imported(
        cast.owner, batch(desktop, machine="desktop"), django_capture_on_commit_callbacks
    )
    assert by_id(job)["s-1"]["messages"] == {"new": 2, "revised": 0, "unchanged": 4, "removed": 0}
    assert Session.objects.count() == 1 and len(_texts()) == 6
    assert sorted(Source.objects.values_list("machine", flat=True)) == ["desktop", "laptop"]


def _database_holds(text: str) -> list[str]:
    """Every table and column of the ingest and block tables holding `text` anywhere."""
    hits = []
    with connection.cursor() as cur:
        for table in ("ingest_message", "ingest_session", "ingest_importjob", "ctx_block"):
            cur.execute(f"SELECT count(*) FROM {table} t WHERE t::text LIKE %s", [f"%{text}%"])  # noqa: S608
            if cur.fetchone()[0]:
                hits.append(table)
    return hits


def test_it_scrubs_credentials_before_anything_is_written(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    leaky = message(0, f"deploy with {AWS_KEY} please", tool_calls=[f"Bash: export K={AWS_KEY}"])
    body = batch(session(messages=[leaky], title=f"key {AWS_KEY}"))
    with django_capture_on_commit_callbacks(execute=False):  # the job as the worker receives it
        status, data = cast.owner.post("/api/sessions/import", body)
    assert status == 202
    assert _database_holds(AWS_KEY) == []
    assert AWS_KEY not in str(ImportJob.objects.get(pk=data["job"]["id"]).payload)
    from ingest import services

    services.job_run(data["job"]["id"])
    stored = Message.objects.get()
    assert stored.text == "deploy with [redacted:aws-key] please"
    assert stored.tool_calls == ["Bash: export K=[redacted:aws-key]"]
    assert stored.redacted == ["aws_access_key"]
    assert "[redacted:aws-key]" in Block.objects.get(type="transcript").content
    assert _database_holds(AWS_KEY) == []


@pytest.mark.parametrize(
    ("field", "value", "limit"),
    [
        ("CTX_SESSION_IMPORT_MAX_MESSAGES", turns(11), 10),
        ("CTX_SESSION_IMPORT_MAX_BYTES", [message(0, "x" * 2_000)], 1_000),
    ],
)
def test_it_refuses_an_oversize_batch_with_413(
    cast: Cast,
    django_capture_on_commit_callbacks: Any,
    settings: Any,
    field: str,
    value: Any,
    limit: int,
) -> None:
    settings.CTX = {**settings.CTX, field: limit}
    status, data = run_import(
        cast.owner, batch(session(messages=value)), django_capture_on_commit_callbacks
    )
    assert (status, data["error"]["code"]) == (413, "payload_too_large"), data
    assert ImportJob.objects.count() == 0 and Session.objects.count() == 0


def test_it_refuses_a_message_over_100000_characters_with_413(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    body = batch(session(messages=[message(0, "x" * 100_001)]))
    status, data = run_import(cast.owner, body, django_capture_on_commit_callbacks)
    assert status == 413, data


def test_it_refuses_a_body_larger_than_the_server_reads_with_413(cast: Cast) -> None:
    raw = '{"sessions": [], "pad": "' + "x" * (9 * 1024 * 1024) + '"}'
    status, data = cast.owner.post("/api/sessions/import", raw=raw)
    assert status == 413 and data["error"]["code"] == "payload_too_large", data


@pytest.mark.parametrize(
    ("body", "message_part"),
    [
        ({"sessions": []}, "'sessions' must be a non-empty list."),
        ({"sessions": "x"}, "'sessions' must be a non-empty list."),
        (batch(session(tool="Claude Code")), "'tool' must be 1-32 characters"),
        (batch({"tool": "codex", "messages": []}), "'sessions.0.external_id' is required."),
        (batch(session(messages=[message(0, "x", role="robot")])), "'role' must be one of"),
        (batch(session(messages=[message(0, "x", content_hash="abc")])), "'content_hash' must"),
        (batch(session(messages=[message(0, "x", timestamp="yesterday")])), "'timestamp'"),
        ({"platform": "cursor", "session_id": "x", "messages": "hi"}, "'messages' must be a list."),
        # Unknown fields are named, never dropped (ctx.ops.inputs.UNKNOWN_FIELDS).
        (batch(session(messages=[message(0, "x", mood="ok")])), "'sessions.0.messages.0.mood'"),
        (batch(session(cwd="/srv")), "Unknown field 'sessions.0.cwd'."),
        (batch(session(), sesions=[]), "Unknown field 'sesions'."),
        ({"platform": "cursor", "session_id": "x", "messages": [], "user": "me"}, "'user'"),
        (
            {"platform": "cursor", "session_id": "x", "messages": [{"role": "user", "id": 7}]},
            "Unknown field 'messages.0.id'.",
        ),
    ],
)
def test_it_refuses_bad_input_with_a_message_naming_it(
    cast: Cast, django_capture_on_commit_callbacks: Any, body: Any, message_part: str
) -> None:
    status, data = run_import(cast.owner, body, django_capture_on_commit_callbacks)
    assert status == 400 and message_part in data["error"]["message"], data
    assert Session.objects.count() == 0


def test_it_refuses_a_key_that_cannot_write_the_scope(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    status, data = run_import(
        cast.reader, batch(session(messages=turns(2))), django_capture_on_commit_callbacks
    )
    assert status == 403 and data["error"]["code"] == "forbidden"
    status, same = run_import(
        cast.owner,
        batch(session(messages=turns(2)), scope="globex:main"),
        django_capture_on_commit_callbacks,
    )
    assert status == 403 and same == data  # a foreign scope answers like an unwritable one


def test_it_never_touches_another_tenants_session_with_the_same_id(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    imported(
        cast.owner,
        batch(session(messages=turns(4, topic="acme"))),
        django_capture_on_commit_callbacks,
    )
    theirs = imported(
        cast.outsider,
        batch(session(messages=turns(6, topic="globex"))),
        django_capture_on_commit_callbacks,
    )
    assert by_id(theirs)["s-1"]["status"] == "new"
    acme, globex = (Session.objects.get(scope__name=n) for n in ("acme:main", "globex:main"))
    assert (acme.message_count, globex.message_count) == (4, 6)
    assert all(t.startswith("acme") for t in acme.messages.values_list("text", flat=True))


def test_it_writes_nothing_of_a_batch_whose_import_fails(
    cast: Cast, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: the second session of the batch fails after the first was written."""
    from ingest import importer

    real = importer.refresh_summary

    def fail_second(s: Session) -> None:
        if s.external_id == "s-2":
            raise RuntimeError("disk full")
        real(s)

    monkeypatch.setattr(importer, "refresh_summary", fail_second)
    body = batch(session("s-1", turns(4)), session("s-2", turns(4)))
    status, job = run_import(cast.owner, body, django_capture_on_commit_callbacks)
    assert status == 202 and job["status"] == "failed" and job["error"] == "Internal error."
    assert (Session.objects.count(), Message.objects.count(), Block.objects.count()) == (0, 0, 0)


def test_it_locks_every_session_of_a_batch_in_one_order_before_anything_else(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    """Two ingest processes run jobs at once: a session cut across two batches is in both,
    and a job that took its Source rows (a shared export file) before that session's lock
    could wait on the other job while it waits on this one."""
    imported(cast.owner, batch(session("s-b", turns(2))), django_capture_on_commit_callbacks)
    source = {"path": "/exports/conversations.json", "cursor": {}}
    body = batch(*(session(s, turns(2), source=source) for s in ("s-c", "s-a", "s-b")))
    with CaptureQueriesContext(connection) as queries:
        job = imported(cast.owner, body, django_capture_on_commit_callbacks)
    assert [by_id(job)[s]["status"] for s in ("s-c", "s-a", "s-b")] == ["new", "new", "unchanged"]
    sql = [q["sql"] for q in queries.captured_queries]
    first_source = next(i for i, q in enumerate(sql) if '"ingest_source"' in q)
    takes = [
        (i, next(s for s in ("s-a", "s-b", "s-c") if f"'{s}'" in q))
        for i, q in enumerate(sql)
        if '"ingest_session"' in q and ("FOR UPDATE" in q or q.startswith("INSERT"))
    ]
    before = [s for i, s in takes if i < first_source]  # a new session: SELECT, then INSERT
    assert list(dict.fromkeys(before)) == ["s-a", "s-b", "s-c"]
