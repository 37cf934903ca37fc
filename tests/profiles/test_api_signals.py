"""POST /api/signals and /api/signals/batch: bounds (413), routing, duplicates, tenancy."""

from __future__ import annotations

import pytest

from profiles.models import Profile, Signal
from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db


def test_it_records_a_signal_into_a_default_profile(apis: Apis) -> None:
    owner = apis[0]
    status, body = owner.post(
        "/api/signals",
        {"type": "dislike", "note": "too long", "tags": ["style"], "context": "A long answer."},
    )
    assert status == 201, body
    assert (body["action"], body["type"], body["profile"]) == ("created", "dislike", "default")
    row = Signal.objects.get(sid=body["id"])
    assert (row.note, row.tags, row.context, row.status) == (
        "too long",
        ["style"],
        "A long answer.",
        "applied",
    )
    assert row.version == 2 and row.interpreter == "rules"
    assert row.interpretations.get().preference == "Keep answers short."


def test_it_stores_a_repeated_id_once(apis: Apis) -> None:
    owner = apis[0]
    first = owner.post("/api/signals", {"id": "mine-1", "type": "like", "note": "great"})
    again = owner.post("/api/signals", {"id": "mine-1", "type": "like", "note": "great"})
    assert first[0] == 201 and again == (200, {**again[1], "action": "duplicate"})
    assert Signal.objects.filter(sid="mine-1").count() == 1


@pytest.mark.parametrize(
    ("field", "value", "named", "message"),
    [
        ("note", "x" * 2001, "note", "'note' is longer than 2000 characters."),
        ("context", "é" * 2049, "context", "'context' is longer than 4096 bytes of UTF-8."),
        ("tags", [f"t{i}" for i in range(21)], "tags", "'tags' has more than 20 items."),
        ("tags", ["x" * 51], "tags[0]", "'tags[0]' is longer than 50 characters."),
        ("source", "s" * 101, "source", "'source' is longer than 100 characters."),
    ],
)
def test_it_answers_413_over_the_size_bounds(
    apis: Apis, field: str, value: object, named: str, message: str
) -> None:
    status, body = apis[0].post("/api/signals", {"type": "like", "note": "ok", field: value})
    assert status == 413
    assert body["error"] == {
        "code": "payload_too_large",
        "message": message,
        "details": {"field": named},
    }
    assert Signal.objects.count() == 0 and Profile.objects.count() == 0


def test_it_takes_a_context_of_exactly_4_kb(apis: Apis) -> None:
    status, _ = apis[0].post("/api/signals", {"type": "dislike", "context": "é" * 2048})
    assert status == 201


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"type": "meh"}, "'type' must be one of: like, dislike, tag, note."),
        ({"type": "note"}, "'note': a note signal needs a note."),
        ({"type": "tag"}, "'tags': a tag signal needs at least one tag."),
        ({"note": "x"}, "'type' is required."),
        (
            {"type": "like", "profile": "Not A Slug"},
            "'profile' must be 1-63 lowercase letters, digits or dashes.",
        ),
    ],
)
def test_it_refuses_a_malformed_signal(apis: Apis, body: dict[str, object], message: str) -> None:
    status, answer = apis[0].post("/api/signals", body)
    assert (status, answer["error"]["message"]) == (400, message)


def test_it_answers_another_tenants_slug_like_a_missing_one(apis: Apis) -> None:
    owner, _, _, outsider = apis
    owner.create("coding", template="coding")
    foreign = outsider.post("/api/signals", {"type": "like", "note": "x", "profile": "coding"})
    missing = outsider.post("/api/signals", {"type": "like", "note": "x", "profile": "nothing"})
    assert foreign == missing and foreign[0] == 404
    assert foreign[1]["error"] == {"code": "not_found", "message": "Profile not found."}


def test_it_refuses_a_key_that_cannot_write_the_profile(apis: Apis) -> None:
    owner, reader, _, _ = apis
    owner.create("coding")
    status, body = reader.post("/api/signals", {"type": "like", "note": "x", "profile": "coding"})
    assert status == 403 and body["error"]["code"] == "forbidden"


def test_it_records_a_batch_and_names_a_bad_item(apis: Apis) -> None:
    owner = apis[0]
    good = [{"type": "dislike", "note": f"no tables {i}", "id": f"b{i}"} for i in range(3)]
    status, body = owner.post("/api/signals/batch", {"signals": good})
    assert status == 200 and (body["count"], body["created"]) == (3, 3)
    status, body = owner.post("/api/signals/batch", {"signals": [*good, {"type": "meh"}]})
    assert status == 400 and body["error"]["message"].startswith("signals[3]: 'type' must be")
    status, body = owner.post("/api/signals/batch", {"signals": good * 167})
    assert status == 413 and body["error"]["message"] == "'signals' has more than 500 items."
    assert Signal.objects.count() == 3


def test_it_applies_a_batch_oldest_signal_first(apis: Apis) -> None:
    owner = apis[0]
    newer = {"type": "note", "note": "answer in German", "created_at": "2025-03-12T15:00:00Z"}
    older = {"type": "note", "note": "answer in English", "created_at": "2025-03-12T14:00:00Z"}
    owner.post("/api/signals/batch", {"signals": [newer, older]})
    prompt = owner.get("/api/preferences/active")[1]["prompt"]
    assert "German" in prompt and "English" not in prompt  # the newer choice replaced it
