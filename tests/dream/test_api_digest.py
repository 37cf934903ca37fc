"""POST /api/digest and the debounced topic map of a scope."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from ctx.models import Block
from dream import digest, hooks
from dream.services import LinkInput, link_upsert
from dream.tasks import build_digest
from tests.conftest import Cast
from tests.dream.conftest import put, scope, settings_ctx, unit

pytestmark = pytest.mark.django_db


def seed() -> None:
    a = put("acme:main", "Docker", "compose", unit(a0=1.0), category="infra", tags=["ops"])
    b = put("acme:main", "Kubernetes", "k8s", unit(a1=1.0), category="infra", tags=["ops"])
    put("acme:main", "Ramen", "broth", unit(a2=1.0), category="food")
    link_upsert(LinkInput(str(a.pk), str(b.pk), "topical", 0.9))


def test_it_builds_a_topic_map_block_of_the_scope(cast: Cast) -> None:
    seed()
    status, body = cast.owner.post("/api/digest", {})
    assert status == 200 and body["action"] == "created"
    assert (body["categories"], body["blocks"]) == (2, 3)
    block = Block.objects.get(pk=body["id"])
    assert (block.type, block.category, block.scope.name) == ("digest", "digest", "acme:main")
    assert "## infra (2)" in block.content and "tags: ops" in block.content
    assert "- Docker (1 link)" in block.content and "## food (1)" in block.content
    again = cast.owner.post("/api/digest", {"scope": "acme:main"})[1]
    assert again["action"] == "noop" and again["id"] == body["id"]


def test_it_keeps_the_digest_out_of_search_unless_asked(cast: Cast) -> None:
    seed()
    cast.owner.post("/api/digest", {})
    plain = cast.owner.post("/api/search", {"query": "topic map infra"})[1]
    asked = cast.owner.post("/api/search", {"query": "topic map infra", "types": ["digest"]})[1]
    assert "Topic map" not in [r["title"] for r in plain["results"]]
    assert [r["title"] for r in asked["results"]] == ["Topic map"]


def test_it_answers_an_empty_scope_without_a_block(cast: Cast) -> None:
    body = cast.writer.post("/api/digest", {})[1]
    assert body == {"success": True, "action": "empty", "id": None, "categories": 0, "blocks": 0}


def test_it_refuses_scopes_the_key_cannot_write(cast: Cast) -> None:
    seed()
    foreign = cast.outsider.post("/api/digest", {"scope": "acme:main"})
    unknown = cast.outsider.post("/api/digest", {"scope": "nowhere"})
    assert foreign == unknown and foreign[0] == 403
    assert cast.reader.post("/api/digest", {})[0] == 403  # reads, cannot write
    assert not Block.objects.filter(type="digest").exists()


@pytest.mark.parametrize("body", [{"scope": 5}, [1], {"scope": "x" * 101}])
def test_it_rejects_bad_input(cast: Cast, body: Any) -> None:
    status, answer = cast.owner.post("/api/digest", body)
    assert status == 400 and answer["error"]["code"] == "validation_error"


def test_it_debounces_rebuilds_after_writes(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_DIGEST_DEBOUNCE_SECONDS=60.0)
    seed()
    sid = scope("acme:main").pk
    now = timezone.now()
    assert digest.mark_due(sid, now=now) is True  # the first write enqueues one rebuild
    assert digest.mark_due(sid, now=now + timedelta(seconds=30)) is False  # later ones wait
    assert 89 < digest.due_in(sid, now=now) <= 90  # type: ignore[operator]
    assert build_digest.run(sid) == "later"  # woke too early: goes back to sleep
    assert digest.overdue(now=now + timedelta(seconds=100)) == []
    assert digest.overdue(now=now + timedelta(seconds=200)) == [sid]  # its task got lost
    settings_ctx(settings, CTX_DIGEST_DEBOUNCE_SECONDS=0.0)
    digest.mark_due(sid, now=now - timedelta(seconds=1))
    assert build_digest.run(sid) == "built"
    assert digest.due_in(sid, now=now) is None
    assert Block.objects.filter(type="digest", scope_id=sid).count() == 1


def test_it_marks_only_the_written_scopes_due(cast: Cast) -> None:
    team = put("acme:team", "Note", "n", unit(a5=1.0))
    hooks.on_written([str(team.pk)])
    assert digest.due_in(scope("acme:team").pk, now=timezone.now()) is not None
    assert digest.due_in(scope("acme:main").pk, now=timezone.now()) is None
    result, _ = digest.digest_build(scope_id=scope("acme:team").pk)
    assert result is not None
    hooks.on_written([str(result.block.pk)])  # writing the map itself changes no map
    assert digest.due_in(scope("acme:team").pk, now=timezone.now()) is None
