"""The guard: the background check after embedding, /api/guard, /api/guard/stats and
/api/guard/resolve (list, stats, archive | keep | merge), tenant isolation and bad input."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from dream.models import DreamState, GuardFlag
from retrieval import indexing
from tests.conftest import Cast
from tests.dream.conftest import cos_mix, put, settings_ctx

pytestmark = pytest.mark.django_db


def pairs() -> list[tuple[str, str, str, str, bool]]:
    return [
        (f.block.title, f.twin.title, f.kind, f.status, f.block.archived)
        for f in GuardFlag.objects.select_related("block", "twin").order_by("id")
    ]


def seed() -> None:
    put("acme:main", "Original", "The original note.", cos_mix(1.0))
    put("acme:main", "Copy", "The original note, again.", cos_mix(0.99))
    put("acme:main", "Cousin", "A related note.", cos_mix(0.95, 0, 2))
    put("acme:main", "Stranger", "Something else.", cos_mix(0.5, 0, 3))
    put("acme:team", "Other scope", "The original note.", cos_mix(1.0))


def test_it_flags_near_copies_and_near_duplicates_in_one_scope_and_archives_nothing(
    cast: Cast,
) -> None:
    seed()
    assert pairs() == [
        ("Copy", "Original", "near_copy", "open", False),
        ("Cousin", "Original", "similar", "open", False),
    ]


def test_it_archives_near_copies_where_the_rule_is_on_and_records_it(
    cast: Cast, settings: Any
) -> None:
    settings_ctx(settings, CTX_GUARD_ACTION="archive")
    seed()
    assert pairs()[0] == ("Copy", "Original", "near_copy", "archived", True)
    assert not DreamState.objects.filter(block__title="Copy").exists()  # never dreamed
    flag = cast.owner.get("/api/guard", status="archived")[1]["flags"][0]
    assert flag["auto"] and flag["resolved_by"] == "rule: CTX_GUARD_ACTION=archive"


def test_it_never_flags_a_pair_with_a_conversation_window(cast: Cast) -> None:
    # Overlapping windows of one session share half their text; a note taken from a
    # conversation says what its window says: records, not copies (vectors as in seed()).
    # (Real window titles carry their message range, whose digits already tell two windows
    # apart; these do not, so only the rule keeps the pairs out.)
    said = "user: we deploy on fridays."
    put("acme:main", "talk", said, cos_mix(1.0), kind="transcript")
    put("acme:main", "talk again", said, cos_mix(0.99), kind="transcript")
    put("acme:main", "Deploys", "We deploy on Fridays.", cos_mix(0.99, 0, 2))
    put("acme:main", "Deploy day", "We deploy on Fridays, again.", cos_mix(0.99, 0, 3))
    assert pairs() == [("Deploy day", "Deploys", "near_copy", "open", False)]


def test_it_runs_where_real_embeddings_are_written(cast: Cast) -> None:
    first = cast.owner.store(title="Docker", content="We run compose v2 in production.")
    cast.owner.store(title="Docker again", content="We run compose v2 in production.")
    assert indexing.embed_pending(limit=10) == 2
    flag = GuardFlag.objects.select_related("block", "twin").get()
    assert str(flag.twin_id) == first["id"] and flag.block.title == "Docker again"
    assert flag.similarity >= 0.92 and flag.status == "open" and not flag.block.archived
    assert DreamState.objects.filter(block_id=first["id"]).exists()


def test_it_lists_open_flags_of_readable_scopes_only(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_GUARD_ACTION="archive")
    seed()
    status, body = cast.owner.get("/api/guard")
    assert status == 200 and body["count"] == 1
    flag = body["flags"][0]
    assert (flag["block"]["title"], flag["twin"]["title"], flag["kind"]) == (
        "Cousin",
        "Original",
        "similar",
    )
    assert "content" not in flag["block"]
    archived = cast.owner.get("/api/guard", status="archived")[1]
    assert [f["block"]["title"] for f in archived["flags"]] == ["Copy"]
    assert cast.outsider.get("/api/guard")[1]["count"] == 0
    foreign = cast.outsider.get("/api/guard", scope="acme:main")
    assert foreign == cast.outsider.get("/api/guard", scope="acme:nowhere")
    assert foreign[0] == 403
    assert cast.writer.get("/api/guard")[1]["count"] == 0  # reads acme:team only


def test_it_counts_flags_by_kind_and_status(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_GUARD_ACTION="archive")
    seed()
    body = cast.owner.get("/api/guard/stats")[1]
    assert body["stats"] == {
        "open": 1,
        "by_kind": {"near_copy": {"archived": 1}, "similar": {"open": 1}},
    }
    assert cast.outsider.get("/api/guard/stats")[1]["stats"] == {"open": 0, "by_kind": {}}


def test_it_resolves_by_archiving_or_keeping(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_GUARD_ACTION="archive")
    seed()
    cousin = GuardFlag.objects.get(block__title="Cousin")
    copy = GuardFlag.objects.get(block__title="Copy")
    status, body = cast.owner.post("/api/guard/resolve", {"id": cousin.pk, "action": "archive"})
    assert status == 200 and body["flag"]["status"] == "archived"
    assert Block.objects.get(title="Cousin").archived
    status, body = cast.owner.post("/api/guard/resolve", {"id": copy.pk, "action": "keep"})
    assert status == 200 and body["flag"]["status"] == "kept"
    assert not Block.objects.get(title="Copy").archived  # the automatic archive is undone
    assert DreamState.objects.filter(block__title="Copy").exists()


def test_it_merges_a_flagged_block_into_its_twin_and_keeps_both_texts(cast: Cast) -> None:
    seed()
    flag = GuardFlag.objects.get(block__title="Cousin")
    status, body = cast.owner.post("/api/guard/resolve", {"id": flag.pk, "action": "merge"})
    assert status == 200 and body["flag"]["status"] == "archived"
    original = Block.objects.get(title="Original")
    assert original.content == "The original note.\n\nA related note."
    assert Block.objects.get(title="Cousin").archived  # archived, not deleted: restorable
    history = cast.owner.get(f"/api/blocks/{original.pk}/history")[1]
    assert [v["content"] for v in history["versions"]][-1] == "The original note."


def test_it_answers_a_foreign_flag_like_a_missing_one(cast: Cast) -> None:
    seed()
    flag = GuardFlag.objects.get(block__title="Cousin")
    foreign = cast.outsider.post("/api/guard/resolve", {"id": flag.pk, "action": "archive"})
    missing = cast.owner.post("/api/guard/resolve", {"id": 999999, "action": "archive"})
    assert foreign == missing
    assert foreign[0] == 404 and foreign[1]["error"]["code"] == "not_found"
    assert not Block.objects.get(title="Cousin").archived


def test_it_needs_write_access_to_resolve(cast: Cast) -> None:
    seed()
    flag = GuardFlag.objects.get(block__title="Cousin")
    status, body = cast.reader.post("/api/guard/resolve", {"id": flag.pk, "action": "archive"})
    assert status == 403 and body["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"id": 1, "action": "delete"}, "validation_error"),
        ({"id": 1}, "validation_error"),
        ([1, 2], "validation_error"),
        ({"id": "abc", "action": "keep"}, "not_found"),
    ],
)
def test_it_rejects_bad_resolutions_with_the_envelope(cast: Cast, body: Any, code: str) -> None:
    status, answer = cast.owner.post("/api/guard/resolve", body)
    assert answer["success"] is False and answer["error"]["code"] == code
    assert status in (400, 404)


def test_it_rejects_bad_list_parameters(cast: Cast) -> None:
    for params in ({"status": "maybe"}, {"limit": "0"}, {"limit": "x"}):
        status, body = cast.owner.get("/api/guard", **params)
        assert status == 400 and body["error"]["code"] == "validation_error"
