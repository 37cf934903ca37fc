"""MCP tool `get_preferences` and the resource `preferences://active`, through a real MCP
client: the same prompt as GET /api/preferences/active."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.mcp.profiles_support import create, read, refusal, signal

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_answers_the_active_prompt(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding", template="coding")
    signal(cast.owner, "no tables", profile="coding")
    data, text, error = call(live, cast.owner.key or "", "get_preferences", {})
    assert not error, text
    assert (data["profile"], data["version"], data["source"]) == ("coding", 2, "fallback")
    assert "- Avoid tables." in data["prompt"]
    assert data["prompt"] == cast.owner.get("/api/preferences/active")[1]["prompt"]
    assert text.startswith("Profile coding (version 2, the most recently updated)")
    assert text.endswith(data["prompt"])


def test_it_reads_the_same_prompt_as_a_resource(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding", template="coding")
    signal(cast.owner, "no emoji please", profile="coding")
    prompt, mime = read(live, cast.owner.key or "", "preferences://active")
    assert mime == "text/markdown"
    assert prompt == cast.owner.get("/api/preferences/active")[1]["prompt"]
    assert prompt.startswith("# Coding") and "emoji" in prompt.lower()


def test_it_reads_a_named_profile(live: LiveServer, cast: Cast) -> None:
    create(cast.owner, "coding", template="coding")
    create(cast.owner, "writing", template="writing")
    data, _, error = call(live, cast.owner.key or "", "get_preferences", {"profile": "coding"})
    assert not error and (data["profile"], data["source"]) == ("coding", "named")
    text, _ = read(live, cast.owner.key or "", "profiles://coding")
    assert text == data["prompt"]


def test_it_answers_another_tenants_profile_like_a_missing_one(
    live: LiveServer, cast: Cast
) -> None:
    create(cast.owner, "coding")
    key = cast.outsider.key or ""
    foreign = call(live, key, "get_preferences", {"profile": "coding"})
    missing = call(live, key, "get_preferences", {"profile": "nothing"})
    assert (
        foreign[0]["error"]
        == missing[0]["error"]
        == {
            "code": "not_found",
            "message": "Profile not found.",
        }
    )
    code, message, data = refusal(live, key, "profiles://coding")
    assert (code, message) == refusal(live, key, "profiles://nothing")[:2]
    assert (code, message, data["error"]["code"]) == (-32602, "Profile not found.", "not_found")


def test_it_says_not_found_before_there_is_a_profile(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(live, cast.owner.key or "", "get_preferences", {})
    assert error and data["error"]["code"] == "not_found"
    code, message, _ = refusal(live, cast.owner.key or "", "preferences://active")
    assert code == -32602 and message.startswith("No profile yet")
