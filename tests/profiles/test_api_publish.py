"""POST/DELETE /api/profiles/{slug}/publish, GET /api/raw/{hash} and /p/{hash}: content
addressed, the same hash for the same logical profile, never signals, excerpts, history or
private facts, refused (with the reason, never the text) when credentials are in it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.test import Client

from profiles.models import Publication
from tests.profiles.support import Apis, ProfileApi

pytestmark = pytest.mark.django_db
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _publish(api: ProfileApi, slug: str) -> tuple[int, Any]:
    return api.post(f"/api/profiles/{slug}/publish")


def test_it_publishes_the_same_logical_profile_under_the_same_hash(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding", template="coding")
    owner.signal("no tables", profile="coding", context="| a | b |\n|---|---|")
    first_status, first = _publish(owner, "coding")
    again_status, again = _publish(owner, "coding")
    assert (first_status, first["action"]) == (201, "published")
    assert (again_status, again["action"]) == (200, "unchanged")
    assert first["hash"] == again["hash"] and first["url"] == f"/p/{first['hash']}"
    # A new version that says the same thing (a reinforced rule) keeps the hash.
    owner.signal("stop using tables", profile="coding")
    assert owner.get("/api/profiles/coding")[1]["profile"]["version"] == 3
    assert _publish(owner, "coding")[1]["hash"] == first["hash"]
    # Something new in it: a new hash.
    owner.signal("no emoji", profile="coding")
    assert _publish(owner, "coding")[1]["hash"] != first["hash"]


def test_it_serves_the_hashed_bytes_without_a_key(apis: Apis) -> None:
    owner = apis[0]
    owner.signal("I'm a data engineer, my name is Priya. No tables!", context="an answer excerpt")
    digest = _publish(owner, "default")[1]["hash"]
    raw = Client().get(f"/api/raw/{digest}")
    assert raw.status_code == 200 and raw["Content-Type"] == "application/json; charset=utf-8"
    assert hashlib.sha256(raw.content).hexdigest()[:12] == digest
    payload = json.loads(raw.content)
    text = raw.content.decode("utf-8")
    assert "Avoid tables." in text and payload["facts"] == [
        {"key": "role", "value": "data engineer"}
    ]
    for private in ("Priya", "an answer excerpt", "signal", "history", "version", "updated_at"):
        assert private not in text, private
    page = Client().get(f"/p/{digest}")
    assert page.status_code == 200 and "Avoid tables." in page.content.decode()
    assert "Priya" not in page.content.decode()


def test_it_refuses_credentials_with_the_reason_and_not_the_text(apis: Apis) -> None:
    owner = apis[0]
    owner.signal(f"always export AWS_SECRET_ACCESS_KEY={SECRET} first")
    status, body = _publish(owner, "default")
    assert status == 422 and body["error"]["code"] == "sensitivity_blocked"
    message = body["error"]["message"]
    assert message.startswith("Not published: refused: credentials-level text in sections[")
    assert SECRET not in message and Publication.objects.count() == 0


def test_it_refuses_a_password_said_in_a_sentence(apis: Apis) -> None:
    owner = apis[0]
    owner.signal("always use the password hunter2-Xq9!zz7 for the staging db")
    status, body = _publish(owner, "default")
    assert status == 422 and body["error"]["code"] == "sensitivity_blocked"
    assert "hunter2" not in body["error"]["message"] and Publication.objects.count() == 0


def test_it_names_personal_data_without_refusing(apis: Apis) -> None:
    owner = apis[0]
    owner.create("mail", context="replies to jane.doe@gmail.com")
    status, body = _publish(owner, "mail")
    assert status == 201
    assert body["findings"] == [
        {"path": "context", "level": "personal", "detectors": ["email_address"]}
    ]


def test_it_unpublishes_and_the_hash_stops_answering(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding")
    digest = _publish(owner, "coding")[1]["hash"]
    status, body = owner.send("DELETE", "/api/profiles/coding/publish")
    assert (status, body["hashes"]) == (200, [digest])
    gone = Client().get(f"/api/raw/{digest}")
    assert gone.status_code == 404 and gone.json()["error"]["message"] == "Publication not found."
    assert Client().get(f"/p/{digest}").status_code == 404


def test_it_answers_404_for_a_hash_that_cannot_be_one(apis: Apis) -> None:
    for bad in ("short", "ABCDEFABCDEF", "0123456789abcdef", "zzzzzzzzzzzz"):
        assert Client().get(f"/api/raw/{bad}").status_code == 404


def test_it_keeps_one_tenants_unpublish_from_the_others_same_content(apis: Apis) -> None:
    owner, _, _, outsider = apis
    owner.create("coding", template="coding")
    outsider.create("coding", template="coding")
    mine, theirs = _publish(owner, "coding")[1], _publish(outsider, "coding")[1]
    assert mine["hash"] == theirs["hash"]  # the same content: the same hash, the same bytes
    owner.send("DELETE", "/api/profiles/coding/publish")
    assert Client().get(f"/api/raw/{mine['hash']}").status_code == 200
