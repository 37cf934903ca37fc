"""GET /api/preferences/active: the prompt as JSON or text/plain, the key's choice or the
tenant's most recently updated profile."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db
ACTIVE = "/api/preferences/active"


def test_it_answers_404_before_there_is_any_profile(apis: Apis) -> None:
    status, body = apis[0].get(ACTIVE)
    assert status == 404 and body["error"]["message"].startswith("No profile yet")


def test_it_falls_back_to_the_most_recently_updated_profile(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding", template="coding")
    owner.create("writing", template="writing")
    assert owner.get(ACTIVE)[1]["profile"] == "writing"
    owner.signal("no tables", profile="coding")  # coding gets a new version: updated last
    status, body = owner.get(ACTIVE)
    assert (status, body["profile"], body["source"], body["version"]) == (
        200,
        "coding",
        "fallback",
        2,
    )


def test_it_answers_the_profile_this_key_chose(apis: Apis) -> None:
    owner, reader, _, _ = apis
    owner.create("coding", template="coding")
    owner.create("writing", template="writing")
    assert owner.post("/api/profiles/coding/activate")[1]["active"] == "coding"
    body = owner.get(ACTIVE)[1]
    assert (body["profile"], body["source"]) == ("coding", "chosen")
    assert reader.get(ACTIVE)[1]["profile"] == "writing"  # one choice per key
    assert reader.post("/api/profiles/coding/activate")[0] == 200  # reading is enough to choose
    assert reader.get(ACTIVE)[1]["profile"] == "coding"


def test_it_answers_text_plain_when_asked(apis: Apis) -> None:
    owner = apis[0]
    owner.signal("no emoji")
    prompt = owner.get(ACTIVE)[1]["prompt"]
    by_accept = owner.text(ACTIVE)
    assert by_accept.status_code == 200
    assert by_accept["Content-Type"] == "text/plain; charset=utf-8"
    assert by_accept.content.decode("utf-8") == prompt
    by_param = owner.text(ACTIVE, accept="*/*", format="text")
    assert by_param["Content-Type"] == "text/plain; charset=utf-8"
    assert by_param.content.decode("utf-8") == prompt
    plain = owner.text(ACTIVE, accept="application/json")
    assert plain["Content-Type"] == "application/json" and plain.json()["prompt"] == prompt


def test_it_keeps_the_json_envelope_for_an_error_asked_as_text(apis: Apis) -> None:
    resp = apis[0].text(ACTIVE)
    assert resp.status_code == 404 and resp["Content-Type"] == "application/json"
    assert resp.json()["error"]["code"] == "not_found"


def test_it_pulls_a_named_profile_and_hides_another_tenants(apis: Apis) -> None:
    owner, _, _, outsider = apis
    owner.create("coding", template="coding")
    assert owner.get(ACTIVE, profile="coding")[1]["source"] == "named"
    outsider.create("mine")
    foreign = outsider.get(ACTIVE, profile="coding")
    missing = outsider.get(ACTIVE, profile="nothing")
    assert foreign == missing and foreign[0] == 404
    assert outsider.get(ACTIVE)[1]["profile"] == "mine"  # never the other tenant's latest


def test_it_reads_the_prompt_in_a_few_queries(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding")
    owner.post("/api/profiles/coding/activate")
    with CaptureQueriesContext(connection) as ctx:
        assert owner.get(ACTIVE)[0] == 200
    # the key, its scopes, the choice with its profile, the open-signal count
    assert len(ctx.captured_queries) <= 6, [q["sql"] for q in ctx.captured_queries]


def test_it_refuses_an_unknown_parameter_but_not_the_format(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding")
    status, body = owner.get(ACTIVE, profle="coding")
    assert (status, body["error"]["message"]) == (400, "Unknown field 'profle'.")
    assert owner.text(ACTIVE, accept="*/*", format="text").status_code == 200
