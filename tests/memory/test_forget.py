"""Forget: deleting a source (a block, a session) deletes every fact, entity and link that
was extracted only from it; a fact another source also states stays, with that source.
Nothing from the deleted source comes back through facts, query, search or the graph."""

from __future__ import annotations

from typing import Any

from ctx.models import Block
from dream.models import Link
from memory.models import Provenance
from tests.conftest import Api, Cast
from tests.ingest.support import batch, by_id, imported, message, session
from tests.memory.support import facts, store, values

ACME = "I work at Acme Corp. We deploy on Tuesdays."


def _delete_block(api: Api, block_id: str, capture: Any) -> None:
    with capture(execute=True):
        status, data = api.post("/api/manage", {"action": "delete", "id": block_id})
    assert status == 200, data


def _found(api: Api, path: str, query: str) -> list[str]:
    status, body = api.post(path, {"query": query, "types": ["fact", "entity"]})
    assert status == 200, body
    return [s["title"] for s in body.get("sources", body.get("results", []))]


def _extracted() -> list[str]:
    return list(
        Block.objects.filter(category__startswith="memory/").values_list("title", flat=True)
    )


def test_it_forgets_what_only_a_deleted_block_said(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    source = store(cast.owner, capture, ACME, title="acme")
    store(cast.owner, capture, "We deploy on Tuesdays.", title="deploys")
    for path in ("/api/query", "/api/search"):
        assert any("Acme" in t for t in _found(cast.owner, path, "Acme Corp employer"))
    acme = Block.objects.get(category="memory/entity", title="Acme Corp")
    status, graph = cast.owner.get("/api/graph/ego", block=str(acme.pk))
    assert any("works at Acme" in n["title"] for n in graph["nodes"])
    _delete_block(cast.owner, source["id"], capture)

    assert values(cast.owner) == {"team.deploy_day": "Tuesday"}
    (deploy,) = facts(cast.owner)
    assert [s["block_id"] for s in deploy["sources"]] != [source["id"]]
    assert not any("Acme" in t for t in _extracted())
    for path in ("/api/query", "/api/search"):
        assert not any("Acme" in t for t in _found(cast.owner, path, "Acme Corp employer"))
    gone = f"block:{source['id']}"
    assert not Link.objects.filter(evidence__sources__contains=[gone]).exists()
    status, graph = cast.owner.get("/api/graph/ego", block=deploy["id"], hops=3)
    assert status == 200 and not any("Acme" in n["title"] for n in graph["nodes"])


def test_it_keeps_a_fact_another_source_states(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    first = store(cast.owner, capture, ACME, title="acme")
    second = store(cast.owner, capture, "We deploy on Tuesdays.", title="deploys")
    (deploy,) = facts(cast.owner, attribute="deploy_day")
    assert sorted(s["block_id"] for s in deploy["sources"]) == sorted([first["id"], second["id"]])
    _delete_block(cast.owner, second["id"], capture)
    (still,) = facts(cast.owner, attribute="deploy_day")
    assert still["id"] == deploy["id"]
    assert [s["block_id"] for s in still["sources"]] == [first["id"]]


def test_it_reopens_the_fact_a_forgotten_source_had_superseded(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, "We deploy on Tuesdays.", source_time="2026-03-01T09:00:00Z")
    later = store(
        cast.owner, capture, "We deploy on Thursdays now.", source_time="2026-03-10T09:00:00Z"
    )
    _delete_block(cast.owner, later["id"], capture)
    (deploy,) = facts(cast.owner, attribute="deploy_day", history="true")
    assert (deploy["value"], deploy["superseded_by"], deploy["valid_to"]) == ("Tuesday", None, None)


def test_it_forgets_what_only_a_deleted_session_said(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    talk = [message(0, "I work at Acme Corp."), message(1, "My sister Lena lives in Berlin.")]
    other = [message(0, "I work at Acme Corp.")]
    job = imported(cast.owner, batch(session("s-1", talk), session("s-2", other)), capture)
    ids = {k: v["id"] for k, v in by_id(job).items()}
    assert values(cast.owner)["user.sister_name"] == "Lena"
    assert any("Lena" in t for t in _found(cast.owner, "/api/search", "sister Lena Berlin"))
    with capture(execute=True):
        resp = cast.owner.client.delete(
            f"/api/sessions/{ids['s-1']}", headers=cast.owner._headers()
        )
    assert resp.status_code == 200, resp.content
    assert values(cast.owner) == {"user.employer": "Acme Corp"}
    (employer,) = facts(cast.owner)
    assert [s["session_id"] for s in employer["sources"]] == [ids["s-2"]]
    assert not Provenance.objects.filter(session_id=ids["s-1"]).exists()
    assert not any("Lena" in t for t in _extracted())
    assert not any("Lena" in t for t in _found(cast.owner, "/api/search", "sister Lena Berlin"))
