"""/api/dream/mode, /api/dream/stats, /api/dream/review and /api/dream/resolve."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from ctx import services as ctx_services
from ctx.models import Block
from dream import services
from dream.cycle import run_cycles
from dream.models import DreamMode, Link
from tests.conftest import Api, Cast
from tests.dream.conftest import T0, cos_mix, days, put

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(cast: Cast) -> Api:
    _, raw = ctx_services.key_create(tenant=cast.acme, name="root", home="acme:main", is_admin=True)
    return Api(raw)


def supersession() -> tuple[Block, Block]:
    old = put("acme:main", "Deploy policy", "We deploy on Tuesdays.", cos_mix(1.0), when=T0)
    new = put(
        "acme:main",
        "Deploy policy 2025",
        "We now deploy on Thursdays instead.",
        cos_mix(0.97),
        when=T0 + days(30),
    )
    run_cycles(worker="w")
    return old, new


# --- mode ---------------------------------------------------------------------------------------


def test_it_lets_a_server_admin_change_the_mode(cast: Cast, admin: Api) -> None:
    assert admin.get("/api/dream/mode") == (200, {"success": True, "mode": "on"})
    assert admin.post("/api/dream/mode", {"mode": "throttled"}) == (
        200,
        {"success": True, "mode": "throttled"},
    )
    assert DreamMode.objects.get().updated_by == "root"
    assert services.mode_get() == "throttled"


def test_it_refuses_the_mode_to_tenant_owners_and_members(cast: Cast) -> None:
    for api in (cast.owner, cast.reader, cast.outsider):
        status, body = api.post("/api/dream/mode", {"mode": "off"})
        assert status == 403 and body["error"]["code"] == "forbidden"
    assert services.mode_get() == "on"


@pytest.mark.parametrize("body", [{"mode": "sleepy"}, {"mode": 3}, {}, ["off"]])
def test_it_rejects_a_bad_mode_with_the_envelope(admin: Api, body: Any) -> None:
    status, answer = admin.post("/api/dream/mode", body)
    assert status == 400 and answer["error"]["code"] == "validation_error"


def test_it_changes_the_mode_from_the_command_line(cast: Cast, capsys: Any) -> None:
    call_command("dream_mode", "off")
    assert capsys.readouterr().out.strip() == "dream mode: off"
    assert services.mode_get() == "off"


# --- stats --------------------------------------------------------------------------------------


def test_it_reports_the_queue_of_readable_scopes(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo", cos_mix(0.9))
    put("acme:main", "Pending", "no vector yet", [], embed=False)
    before = cast.owner.get("/api/dream/stats")[1]
    assert before["queue"]["pickable_now"] == 2 and before["queue"]["never_dreamed"] == 2
    assert before["queue"]["awaiting_embedding"] == 1 and before["mode"] == "on"
    run_cycles(worker="w")
    after = cast.owner.get("/api/dream/stats")[1]
    assert after["queue"] | {"levels": None} == {
        "pickable_now": 0,
        "in_cooldown": 2,
        "due_next_hour": 0,  # the shortest cooldown is 12 hours
        "claimed": 0,
        "never_dreamed": 0,
        "awaiting_embedding": 1,
        "failing": 0,
        "cycles": 2,
        "levels": None,
    }
    assert sum(after["queue"]["levels"].values()) == 2
    assert after["links"]["classes"] == {"topical": 1}


def test_stats_shows_the_dream_backlog_with_the_next_hours_forecast(
    cast: Cast, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_DREAM_BACKOFF_MIN_HOURS": 0.5}
    put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo", cos_mix(0.9))

    def backlog(api: Any) -> dict[str, Any]:
        status, body = api.post("/api/manage", {"action": "stats"})
        assert status == 200, body
        return dict(body["stats"]["dream"])

    queue = {"mode": "on", "pickable_now": 2, "in_cooldown": 0, "due_next_hour": 0}
    assert backlog(cast.owner) == {**queue, "never_dreamed": 2}
    run_cycles(worker="w")
    # Both cool down for half an hour: due again within the hour.
    assert backlog(cast.owner) == {
        "mode": "on",
        "pickable_now": 0,
        "in_cooldown": 2,
        "due_next_hour": 2,
        "never_dreamed": 0,
    }
    assert backlog(cast.outsider) == {**queue, "pickable_now": 0, "never_dreamed": 0}


def test_stats_counts_only_leaves_the_backlog_out(cast: Cast) -> None:
    """What the status line asks: the counts, without the backlog's scan of the scope."""
    put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    status, body = cast.owner.post("/api/manage", {"action": "stats", "counts_only": True})
    assert status == 200 and body["stats"]["blocks"] == 1
    assert "dream" not in body["stats"]


def test_it_shows_an_outsider_nothing_of_acme(cast: Cast) -> None:
    put("acme:main", "Alpha", "alpha", cos_mix(1.0))
    body = cast.outsider.get("/api/dream/stats")[1]
    assert body["queue"]["pickable_now"] == 0 and body["links"]["total"] == 0
    foreign = cast.outsider.get("/api/dream/stats", scope="acme:main")
    assert foreign == cast.outsider.get("/api/dream/stats", scope="acme:nowhere")
    assert foreign[0] == 403


# --- review and resolve -------------------------------------------------------------------------


def test_it_lists_supersessions_and_weak_links_for_review(cast: Cast) -> None:
    supersession()
    status, body = cast.owner.get("/api/dream/review")
    assert status == 200 and body["count"] == 1
    link = body["links"][0]
    assert (link["source"]["title"], link["target"]["title"], link["link_class"]) == (
        "Deploy policy 2025",
        "Deploy policy",
        "supersedes",
    )
    assert "content" not in link["source"] and link["evidence"]["typer"] == "rules"
    assert cast.outsider.get("/api/dream/review")[1]["count"] == 0
    assert cast.owner.get("/api/dream/review", link_class="topical")[1]["count"] == 0


def test_it_pins_a_confirmed_link(cast: Cast) -> None:
    supersession()
    link = Link.objects.get()
    status, body = cast.owner.post("/api/dream/resolve", {"link": link.pk, "action": "confirm"})
    assert status == 200 and body == {
        "success": True,
        "action": "confirmed",
        "id": link.pk,
        "pinned": True,
    }
    assert Link.objects.get().pinned and cast.owner.get("/api/dream/review")[1]["count"] == 0


def test_it_deletes_a_supersession_and_restores_its_target(cast: Cast) -> None:
    old, _ = supersession()
    assert Block.objects.get(pk=old.pk).lifecycle == "snapshot"
    link = Link.objects.get()
    status, body = cast.owner.post("/api/dream/resolve", {"link": str(link.pk), "action": "delete"})
    assert status == 200 and body["restored"] == [str(old.pk)]
    old.refresh_from_db()
    assert (old.lifecycle, old.superseded_by_id, Link.objects.count()) == ("knowledge", None, 0)


def test_it_answers_a_foreign_link_like_a_missing_one(cast: Cast) -> None:
    supersession()
    link = Link.objects.get()
    foreign = cast.outsider.post("/api/dream/resolve", {"link": link.pk, "action": "delete"})
    missing = cast.owner.post("/api/dream/resolve", {"link": 987654, "action": "delete"})
    assert foreign == missing and foreign[0] == 404
    assert foreign[1]["error"] == {"code": "not_found", "message": "Link not found."}
    assert Link.objects.count() == 1


def test_it_needs_write_access_to_resolve_a_link(cast: Cast) -> None:
    supersession()
    link = Link.objects.get()
    status, body = cast.reader.post("/api/dream/resolve", {"link": link.pk, "action": "delete"})
    assert status == 403 and body["error"]["code"] == "forbidden" and Link.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"link": 1, "action": "maybe"}, 400, "validation_error"),
        ({"link": 1}, 400, "validation_error"),
        ({"link": "x1", "action": "confirm"}, 404, "not_found"),
        ({"link": True, "action": "confirm"}, 404, "not_found"),
        ("nope", 400, "validation_error"),
    ],
)
def test_it_rejects_bad_resolutions(cast: Cast, body: Any, status: int, code: str) -> None:
    answer = cast.owner.post("/api/dream/resolve", body)
    assert answer[0] == status and answer[1]["error"]["code"] == code


def test_it_rejects_bad_review_parameters(cast: Cast) -> None:
    for params in ({"link_class": "friends"}, {"limit": "501"}, {"limit": "-1"}):
        status, body = cast.owner.get("/api/dream/review", **params)
        assert status == 400 and body["error"]["code"] == "validation_error"


def test_it_needs_a_key_for_every_dream_endpoint(cast: Cast) -> None:
    anon = Api(None)
    for path in ("/api/dream/stats", "/api/dream/review", "/api/dream/mode"):
        assert anon.get(path)[0] == 401
    assert anon.post("/api/dream/resolve", {})[0] == 401
