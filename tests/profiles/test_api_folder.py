"""GET /api/profiles/export, POST /api/signals/inbox and /api/profiles/import: the folder
contract's server side (the CLI only moves the bytes)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from profiles.core.folder import import_files
from profiles.models import Profile, ProfileVersion, Signal
from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db
UUIDS = [f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd" for i in range(1, 10)]


def test_it_exports_the_files_the_core_reads_back(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding", template="coding")
    owner.signal("no tables", profile="coding", context="| a |")
    status, body = owner.get("/api/profiles/export")
    assert status == 200
    files = body["files"]
    assert sorted(files) == [
        "active.txt",
        "coding.history.jsonl",
        "coding.json",
        "coding.md",
        "signals.jsonl",
    ]
    assert files["coding.md"] == owner.get("/api/preferences/active")[1]["prompt"]
    back = import_files(files)
    assert back.active == "coding" and back.profiles[0].version == 2
    assert [c.version for c in back.profiles[0].history] == [1, 2]
    assert back.signals[0].context == "| a |"
    assert (body["signals"], body["pending"]) == (1, 0)


def test_it_exports_only_what_the_key_reads(apis: Apis) -> None:
    owner, _, writer, outsider = apis
    owner.create("mine")
    outsider.create("theirs")
    assert outsider.get("/api/profiles/export")[1]["profiles"] == ["theirs"]
    assert writer.get("/api/profiles/export")[1] == {
        "success": True,
        "active": None,
        "profiles": [],
        "signals": 0,
        "pending": 0,
        "files": {"active.txt": "\n", "signals.jsonl": ""},
    }


def _file(n: int, body: object, stamp: str = "20250312T140000Z") -> dict[str, str]:
    text = body if isinstance(body, str) else json.dumps(body)
    return {"name": f"{stamp}-{UUIDS[n]}.json", "text": text}


def test_it_answers_each_inbox_file_and_never_stops_at_a_bad_one(apis: Apis) -> None:
    owner = apis[0]
    files: list[dict[str, Any]] = [
        _file(0, {"type": "dislike", "note": "no tables"}, "20250312T140002Z"),
        _file(1, "{nope"),
        {"name": "hello.json", "text": "{}"},
        _file(2, {"type": "like", "note": "x" * 2001}),
        _file(3, {"type": "dislike", "note": "no emoji"}, "1741788000"),
        {"name": 7, "text": "{}"},
    ]
    status, body = owner.post("/api/signals/inbox", {"files": files})
    assert status == 200, body
    results = {r["name"]: r for r in body["results"]}
    assert results[files[0]["name"]]["action"] == "stored"
    assert results[files[4]["name"]] == {
        "name": files[4]["name"],
        "action": "stored",
        "id": UUIDS[3],
        "profile": "default",
    }
    assert results[files[1]["name"]]["reason"].startswith("not JSON")
    assert results["hello.json"]["reason"] == "the name is not <timestamp>-<uuid>.json"
    assert results[files[3]["name"]]["reason"] == "note: must be at most 2000 characters"
    assert results["?"]["reason"] == "'name' must be a string."
    assert Signal.objects.count() == 2
    assert Signal.objects.get(sid=UUIDS[3]).created_at.isoformat() == "2025-03-12T14:00:00+00:00"
    again = owner.post("/api/signals/inbox", {"files": files[:1]})[1]
    assert again["results"][0]["action"] == "duplicate"


def test_an_inbox_file_named_for_an_impossible_time_is_rejected_with_its_reason(
    apis: Apis,
) -> None:
    owner = apis[0]
    files = [
        _file(0, {"type": "like", "note": "x"}, "20261399T256199Z"),
        _file(1, {"type": "like", "note": "y"}),
    ]
    status, body = owner.post("/api/signals/inbox", {"files": files})
    assert status == 200, body  # was a 500 for the whole request (hypothesis found it)
    first, second = body["results"]
    assert first["reason"] == "the name's time 20261399T256199Z is not a real time"
    assert second["action"] == "stored"


def test_it_bounds_an_inbox_request(apis: Apis) -> None:
    owner = apis[0]
    many = [_file(0, {"type": "like", "note": "x"})] * 101
    status, body = owner.post("/api/signals/inbox", {"files": many})
    assert (status, body["error"]["message"]) == (413, "'files' has more than 100 items.")
    big = {"name": _file(0, "")["name"], "text": "x" * (64 * 1024 + 1)}
    status, body = owner.post("/api/signals/inbox", {"files": [big]})
    assert (
        status == 200
        and body["results"][0]["reason"] == "'text' is longer than 65536 bytes of UTF-8."
    )


def test_it_imports_profiles_with_versions_and_signals(apis: Apis) -> None:
    owner, _, _, outsider = apis
    owner.create("coding", template="coding")
    owner.signal("no tables", profile="coding")
    owner.signal("I'm a data engineer; my name is Priya", profile="coding")
    files = owner.get("/api/profiles/export")[1]["files"]
    status, body = outsider.post("/api/profiles/import", {"files": files})
    assert status == 200, body
    assert (body["created"], body["signals"], body["active"]) == (["coding"], 2, "coding")
    theirs = Profile.objects.get(tenant__name="globex", slug="coding")
    assert theirs.prompt == files["coding.md"] and theirs.version == 3
    versions = ProfileVersion.objects.filter(profile=theirs).order_by("version")
    assert [(v.version, v.state is not None) for v in versions] == [
        (1, False),
        (2, False),
        (3, True),
    ]
    assert set(theirs.signals.values_list("status", flat=True)) == {"applied"}
    facts = outsider.get("/api/profiles/coding")[1]["profile"]["facts"]
    assert {f["key"] for f in facts} == {"name", "role"}


def test_it_refuses_a_folder_that_is_not_one(apis: Apis) -> None:
    status, body = apis[0].post(
        "/api/profiles/import",
        {"files": {"x.json": json.dumps({"format": "ctx.profile/1", "slug": "y"})}},
    )
    assert status == 400 and body["error"]["message"].startswith("Not a profiles folder: x.json")
    owner = apis[0]
    owner.create("mine")
    files = owner.get("/api/profiles/export")[1]["files"]
    damaged = {**json.loads(files["mine.json"]), "metrics": None}  # was a 500 (hypothesis)
    status, body = owner.post(
        "/api/profiles/import", {"files": {**files, "mine.json": json.dumps(damaged)}}
    )
    assert (status, body["error"]["code"]) == (400, "validation_error"), body
    assert body["error"]["message"].startswith("Not a profiles folder: mine.json")
    status, body = apis[0].post(
        "/api/profiles/import", {"files": {"a.json": "x" * (8 * 1024 * 1024 + 1)}}
    )
    assert (status, body["error"]["code"]) == (413, "payload_too_large")
