"""GET /api/profiles/{slug}/versions and /diff: the history with what changed and which
signals caused it, and the prompt's diff between two versions."""

from __future__ import annotations

import pytest

from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db


def test_it_lists_each_version_with_its_change_and_signals(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding", template="coding")
    first = owner.signal("no tables", profile="coding", id="s-tables")
    owner.signal("decrease directness by 0.5", profile="coding", id="s-direct")
    owner.signal("stop using tables", profile="coding", id="s-again")  # says it again
    status, body = owner.get("/api/profiles/coding/versions")
    assert status == 200 and first["version"] in (1, 2)
    versions = {v["version"]: v for v in body["versions"]}
    assert sorted(versions) == [1, 2, 3, 4]
    assert versions[2]["summary"] == "Added 'Avoid tables.'."
    assert versions[2]["signal_ids"] == ["s-tables"]
    assert versions[2]["change"]["added"] == [{"text": "Avoid tables.", "signal_ids": ["s-tables"]}]
    moved = versions[3]["change"]["metrics"]
    assert moved == [
        {"dimension": "directness", "before": 0.4, "after": -0.1, "signal_ids": ["s-direct"]}
    ]
    assert versions[3]["change"]["added"] == []  # a metric adjustment adds no rule
    assert versions[4]["change"]["reinforced"][0]["text"] == "Avoid tables."
    assert owner.get("/api/profiles/coding/versions", limit=2)[1]["count"] == 2


def test_it_diffs_the_prompt_between_versions(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding", template="coding")
    owner.signal("no tables", profile="coding")
    owner.signal("always use type hints", profile="coding")
    status, body = owner.get("/api/profiles/coding/diff")  # latest against the one before
    assert status == 200 and (body["from_version"], body["to_version"]) == (2, 3)
    assert "+- Use type hints." in body["diff"] and "+- Avoid tables." not in body["diff"]
    wide = owner.get("/api/profiles/coding/diff", **{"from": 1, "to": 3})[1]
    assert "+- Avoid tables." in wide["diff"] and "+- Use type hints." in wide["diff"]
    assert [c["version"] for c in wide["changes"]] == [2, 3]


def test_it_refuses_a_diff_backwards_or_to_a_missing_version(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding")
    status, body = owner.get("/api/profiles/coding/diff", **{"from": 2, "to": 1})
    assert status == 400 and body["error"]["message"] == "'from' must not be after 'to'."
    status, body = owner.get("/api/profiles/coding/diff", to=7)
    assert status == 404 and body["error"]["message"] == "coding has no version 7."
