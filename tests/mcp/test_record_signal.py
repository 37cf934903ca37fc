"""MCP tool `record_signal`: the signal is stored for the key's profile and, once a worker has
processed it, the next `get_preferences` answers the new version."""

from __future__ import annotations

import pytest

from profiles import processing
from profiles.models import Profile, Signal
from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.mcp.profiles_support import create

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_records_a_signal_that_becomes_the_next_version(live: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    args = {"type": "dislike", "note": "no tables please", "context": "| a | b |", "id": "m-1"}
    data, text, error = call(live, key, "record_signal", args)
    assert not error, text
    assert (data["action"], data["id"], data["profile"]) == ("created", "m-1", "default")
    assert text.startswith("Recorded dislike signal m-1 for profile default")
    row = Signal.objects.get(sid="m-1")
    assert (row.note, row.context, row.source) == ("no tables please", "| a | b |", "")
    # The live server enqueued the processing task; no worker runs in the suite: do its work.
    processing.profile_process(row.profile_id)
    prefs, _, _ = call(live, key, "get_preferences", {})
    assert prefs["version"] == 2 and "- Avoid tables." in prefs["prompt"]
    again, text, _ = call(live, key, "record_signal", args)
    assert again["action"] == "duplicate" and text.startswith("Already recorded")
    assert Signal.objects.filter(sid="m-1").count() == 1


def test_it_answers_payload_too_large_over_the_bounds(live: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    for field, value in (("note", "x" * 2001), ("context", "é" * 2049)):
        data, _, error = call(live, key, "record_signal", {"type": "dislike", field: value})
        assert error and data["error"]["code"] == "payload_too_large", field
        assert data["error"]["details"] == {"field": field}
    assert Signal.objects.count() == 0 and Profile.objects.count() == 0


def test_it_refuses_a_read_only_key(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding")
    data, _, error = call(
        live, cast.reader.key or "", "record_signal", {"type": "like", "profile": "coding"}
    )
    assert error and data["error"]["code"] == "forbidden"
    assert Signal.objects.count() == 0


def test_it_answers_another_tenants_profile_like_a_missing_one(
    live: LiveServer, cast: Cast
) -> None:
    create(cast.owner, "coding")
    key = cast.outsider.key or ""
    foreign = call(live, key, "record_signal", {"type": "like", "profile": "coding"})
    missing = call(live, key, "record_signal", {"type": "like", "profile": "nothing"})
    assert foreign[0]["error"] == missing[0]["error"]
    assert foreign[0]["error"]["code"] == "not_found" and Signal.objects.count() == 0
