"""/api/profiles and /api/profiles/{slug}: list, create, read, edit, delete, activate; another
tenant's slug answers exactly like a missing one on every endpoint."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from profiles.models import Profile, Signal, UserFact
from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db


def test_it_creates_a_profile_from_a_template(apis: Apis) -> None:
    status, body = apis[0].post(
        "/api/profiles",
        {
            "slug": "notes",
            "name": "Notes",
            "template": "meeting-notes",
            "interpretation_hint": "I lead a team.",
        },
    )
    assert status == 201, body
    made = body["profile"]
    assert (made["version"], made["template"], made["context"], made["scope"]) == (
        1,
        "meeting-notes",
        "meeting notes",
        "acme:main",
    )
    assert [r["text"] for r in made["rules"]] == [
        "Start with a short summary.",
        "Use bullet lists where they help.",
        "Use headings to structure long answers.",
    ]
    assert made["interpretation_hint"] == "I lead a team." and made["prompt"].startswith("# Notes")


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (
            {"slug": "Bad Slug", "name": "x"},
            400,
            "'slug' must be 1-63 lowercase letters, digits or dashes.",
        ),
        ({"slug": "export", "name": "x"}, 400, "'slug' must not be 'export' (reserved)."),
        (
            {"slug": "ok", "name": "x", "template": "poetry"},
            400,
            "'template' must be one of: general, coding, writing, meeting-notes.",
        ),
        ({"slug": "ok"}, 400, "'name' is required."),
        (
            {"slug": "ok", "name": "x", "scope": "globex:main"},
            403,
            "This key cannot write to that scope.",
        ),
    ],
)
def test_it_refuses_a_bad_profile(
    apis: Apis, body: dict[str, str], status: int, message: str
) -> None:
    answer = apis[0].post("/api/profiles", body)
    assert (answer[0], answer[1]["error"]["message"]) == (status, message)


def test_it_refuses_a_slug_the_tenant_has(apis: Apis) -> None:
    owner, _, writer, outsider = apis
    owner.create("coding")
    status, body = writer.post("/api/profiles", {"slug": "coding", "name": "Mine"})
    assert status == 409 and body["error"]["code"] == "conflict"
    assert outsider.post("/api/profiles", {"slug": "coding", "name": "Ours"})[0] == 201


def test_it_lists_the_readable_profiles_in_few_queries(apis: Apis) -> None:
    owner, _, writer, outsider = apis
    owner.create("coding")
    writer.create("team")  # acme:team: the owner reads it too
    outsider.create("globex-only")
    for i in range(3):
        owner.signal(f"no tables {i}", profile="coding")
    with CaptureQueriesContext(connection) as ctx:
        status, body = owner.get("/api/profiles")
    assert status == 200 and [p["slug"] for p in body["profiles"]] == ["coding", "team"]
    assert len(ctx.captured_queries) <= 7  # not one per profile
    assert [p["slug"] for p in writer.get("/api/profiles")[1]["profiles"]] == ["team"]


def test_it_edits_names_hint_and_fact_privacy_without_a_new_version(apis: Apis) -> None:
    owner = apis[0]
    owner.signal("I'm a data engineer; my name is Priya")
    status, body = owner.send(
        "PATCH",
        "/api/profiles/default",
        {"name": "Mine", "context": "work", "fact_privacy": {"role": True, "name": False}},
    )
    assert status == 200, body
    made = body["profile"]
    assert (made["name"], made["context"], made["version"]) == ("Mine", "work", 2)
    assert made["prompt"].startswith("# Mine — work\n*Version 2")
    assert {f["key"]: f["private"] for f in made["facts"]} == {"role": True, "name": False}
    assert UserFact.objects.get(key="role", status="current").private is True
    status, body = owner.send("PATCH", "/api/profiles/default", {"fact_privacy": {"pet": True}})
    assert status == 400 and body["error"]["message"] == "The profile states no fact 'pet'."


def test_it_deletes_a_profile_with_its_signals(apis: Apis) -> None:
    owner = apis[0]
    owner.signal("no tables")
    status, body = owner.send("DELETE", "/api/profiles/default")
    assert (status, body["action"]) == (200, "deleted")
    assert Profile.objects.count() == 0 and Signal.objects.count() == 0


def test_it_refuses_a_reader_every_change(apis: Apis) -> None:
    owner, reader, _, _ = apis
    owner.create("coding")
    for method, path, body in (
        ("PATCH", "/api/profiles/coding", {"name": "x"}),
        ("DELETE", "/api/profiles/coding", None),
        ("POST", "/api/profiles/coding/publish", None),
    ):
        status, answer = reader.send(method, path, body)
        assert (status, answer["error"]["code"]) == (403, "forbidden"), path


ENDPOINTS = [
    ("GET", "/api/profiles/{slug}", None),
    ("PATCH", "/api/profiles/{slug}", {"name": "x"}),
    ("DELETE", "/api/profiles/{slug}", None),
    ("POST", "/api/profiles/{slug}/activate", None),
    ("GET", "/api/profiles/{slug}/versions", None),
    ("GET", "/api/profiles/{slug}/diff", None),
    ("POST", "/api/profiles/{slug}/publish", None),
    ("DELETE", "/api/profiles/{slug}/publish", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_it_answers_another_tenants_slug_like_a_missing_one(
    apis: Apis, method: str, path: str, body: dict[str, str] | None
) -> None:
    owner, _, _, outsider = apis
    owner.create("coding")
    foreign = outsider.send(method, path.format(slug="coding"), body)
    missing = outsider.send(method, path.format(slug="nothing"), body)
    assert foreign == missing
    assert foreign == (
        404,
        {"success": False, "error": {"code": "not_found", "message": "Profile not found."}},
    )
    assert Profile.objects.get(slug="coding").name == "Coding"  # untouched


def test_it_answers_a_slug_that_cannot_exist_like_a_missing_one(apis: Apis) -> None:
    assert apis[0].get("/api/profiles/NOT..a..slug")[0] == 404
