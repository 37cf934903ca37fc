"""MCP tool `list_profiles`, the resource `profiles://list` and resources/list: the profiles
the key can read, never another tenant's."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.mcp.profiles_support import create, listed, read

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_lists_the_keys_profiles_and_marks_the_active_one(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding", template="coding")
    create(cast.owner, "writing", template="writing")
    assert cast.owner.post("/api/profiles/coding/activate")[0] == 200
    data, text, error = call(live, cast.owner.key or "", "list_profiles", {})
    assert not error and data["active"] == "coding"
    assert [p["slug"] for p in data["profiles"]] == ["writing", "coding"]  # latest first
    assert "* coding: Coding" in text and "  writing: Writing" in text
    body, mime = read(live, cast.owner.key or "", "profiles://list")
    assert mime == "application/json"
    assert json.loads(body)["profiles"] == data["profiles"]


def test_it_names_one_resource_per_readable_profile(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding")
    create(cast.outsider, "theirs")
    uris, templates = listed(live, cast.owner.key or "")
    assert {"preferences://active", "profiles://list", "profiles://coding"} <= set(uris)
    assert "profiles://theirs" not in uris and "profiles://{slug}" in templates
    outsider_uris, _ = listed(live, cast.outsider.key or "")
    assert "profiles://theirs" in outsider_uris and "profiles://coding" not in outsider_uris


def test_it_lists_nothing_of_another_tenant(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding")
    data, text, _ = call(live, cast.outsider.key or "", "list_profiles", {})
    assert (data["count"], data["profiles"]) == (0, [])
    assert text.startswith("No profiles yet")
