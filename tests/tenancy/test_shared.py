"""The server-wide `shared` scope over HTTP: read by grant, written by a server admin's grant.

A tenant's admins give a key `read_scopes: ["shared"]`; only a server admin gives
`write_scopes: ["shared"]`. Without the read grant a shared block answers like a missing one;
with it, a tenant still never sees another tenant's private blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ctx.errors import FORBIDDEN_SCOPE_MESSAGE, NOT_FOUND_MESSAGE, Forbidden
from tests.tenancy.conftest import Client, Tiers, make_tiers
from tests.tenancy.test_tiers import FORBIDDEN_BODY

MISSING = "00000000-0000-4000-8000-000000000000"
NOT_FOUND = {"success": False, "error": {"code": "not_found", "message": NOT_FOUND_MESSAGE}}
FORBIDDEN_WRITE = Forbidden(FORBIDDEN_SCOPE_MESSAGE).envelope()
SHARED_TEXT = "The office wifi password rotates every first Monday of the month."


@dataclass
class World:
    tiers: Tiers
    publisher: Client  # ops key a server admin let write `shared`
    acme_reader: Client  # acme key with the read grant (given by acme's admin)
    globex_reader: Client  # globex key with the read grant (given by globex's owner)
    acme_plain: Client  # acme member without the grant
    shared_id: str


def _mint(by: Client, **body: Any) -> tuple[Client, dict[str, Any]]:
    status, data = by.call("POST", "/api/keys", {"role": "member", **body})
    assert status == 201, data
    return Client(data["key"]), data


@pytest.fixture
def world(db: Any) -> World:
    t = make_tiers()
    publisher, minted = _mint(
        t.server_admin, name="publisher", home_scope="ops:main", write_scopes=["ops:main", "shared"]
    )
    assert minted["write_scopes"] == ["ops:main", "shared"]
    stored = publisher.store(scope="shared", category="office", title="Wifi", content=SHARED_TEXT)
    acme_reader, minted = _mint(t.admin, name="reader", read_scopes=["shared"])
    assert minted["read_scopes"] == ["shared"] and minted["home_scope"] == "acme:main"
    globex_reader, _ = _mint(t.outsider, name="reader", read_scopes=["shared"])
    return World(t, publisher, acme_reader, globex_reader, t.member, stored["id"])


def _search_ids(client: Client, query: str) -> list[str]:
    status, body = client.post("/api/search", {"query": query})
    assert status == 200, body
    return [r["id"] for r in body["results"]]


def _query_ids(client: Client, query: str) -> list[str]:
    status, body = client.post("/api/query", {"query": query})
    assert status == 200, body
    return [s["id"] for s in body["sources"]]


def _listed_ids(client: Client) -> list[str]:
    status, body = client.get("/api/blocks")
    assert status == 200, body
    return [r["id"] for r in body["results"]]


def _recent_ids(client: Client) -> list[str]:
    status, body = client.post("/api/manage", {"action": "recent"})
    assert status == 200, body
    return [r["id"] for r in body["results"]]


def _get(client: Client, block_id: str) -> tuple[int, Any]:
    return client.post("/api/manage", {"action": "get", "id": block_id})


def test_it_shows_shared_blocks_to_a_key_with_the_read_grant(world: World) -> None:
    reader = world.acme_reader
    assert world.shared_id in _search_ids(reader, "wifi password")
    assert world.shared_id in _query_ids(reader, "when does the wifi password rotate?")
    assert world.shared_id in _listed_ids(reader)
    assert world.shared_id in _recent_ids(reader)
    status, body = _get(reader, world.shared_id)
    assert status == 200 and body["block"]["scope"] == "shared", body
    assert body["block"]["content"] == SHARED_TEXT
    status, body = reader.get("/api/blocks", scope="shared")
    assert status == 200 and [r["id"] for r in body["results"]] == [world.shared_id]
    assert "shared" in reader.get("/api/whoami")[1]["read_scopes"]


def test_it_hides_shared_blocks_from_a_key_without_the_grant(world: World) -> None:
    plain = world.acme_plain
    assert _search_ids(plain, "wifi password") == []
    assert _query_ids(plain, "when does the wifi password rotate?") == []
    assert world.shared_id not in _listed_ids(plain)
    assert world.shared_id not in _recent_ids(plain)
    # A shared block's id answers exactly like a missing one.
    assert _get(plain, world.shared_id) == _get(plain, MISSING) == (404, NOT_FOUND)
    # Naming the scope is the fixed refusal of any scope the key cannot read.
    named = plain.get("/api/blocks", scope="shared")
    assert named == plain.get("/api/blocks", scope="acme:nowhere") and named[0] == 403


def test_it_never_shows_another_tenants_private_blocks_to_granted_keys(world: World) -> None:
    world.tiers.owner.store(title="Acme launch", content="The wifi password launch is secret.")
    world.tiers.outsider.store(title="Globex plan", content="Globex wifi password plan.")
    acme_private = _search_ids(world.tiers.owner, "wifi password launch")
    globex_private = _search_ids(world.tiers.outsider, "globex wifi password plan")
    for reader, foreign in (
        (world.acme_reader, globex_private),
        (world.globex_reader, acme_private),
    ):
        seen = {
            *_search_ids(reader, "wifi password"),
            *_query_ids(reader, "wifi password plan launch"),
            *_listed_ids(reader),
            *_recent_ids(reader),
        }
        assert world.shared_id in seen
        private = set(foreign) - {world.shared_id}
        assert private and not private & seen
        for block_id in private:
            assert _get(reader, block_id) == (404, NOT_FOUND)


def test_it_refuses_a_write_into_shared_without_the_write_grant(world: World) -> None:
    before = _search_ids(world.publisher, "wifi")
    body = {"scope": "shared", "category": "office", "title": "Planted", "content": "x"}
    for client in (world.acme_reader, world.acme_plain, world.tiers.owner):
        assert client.post("/api/store", body) == (403, FORBIDDEN_WRITE)
        # The same body as a scope that does not exist: nothing about `shared` is told.
        assert client.post("/api/store", {**body, "scope": "acme:nowhere"}) == (
            403,
            FORBIDDEN_WRITE,
        )
    update = {"action": "update", "id": world.shared_id, "fields": {"content": "pwned"}}
    status, answer = world.acme_reader.post("/api/manage", update)
    assert status == 403 and answer["error"]["code"] == "forbidden"
    assert _search_ids(world.publisher, "wifi") == before


def test_it_lets_only_a_server_admin_give_the_write_grant(world: World) -> None:
    t = world.tiers
    for manager in (t.owner, t.admin):
        status, _ = manager.call(
            "POST", "/api/keys", {"name": "sneaky", "write_scopes": ["acme:main", "shared"]}
        )
        assert status == 403 and manager.last == FORBIDDEN_BODY
    target = t.keys["member2"].prefix
    for manager in (t.owner, t.admin):
        status, _ = manager.call("PATCH", f"/api/keys/{target}", {"write_scopes": ["shared"]})
        assert status == 403 and manager.last == FORBIDDEN_BODY

    # A server admin grants it to an acme key; the key then writes into `shared`.
    status, body = t.server_admin.call(
        "PATCH", f"/api/keys/{target}", {"write_scopes": ["acme:main", "shared"]}
    )
    assert status == 200 and body["write_scopes"] == ["acme:main", "shared"], body
    # Its tenant's owner may keep it (send it back) or drop it, not give it again.
    status, body = t.owner.call(
        "PATCH", f"/api/keys/{target}", {"write_scopes": ["acme:main", "shared"]}
    )
    assert status == 200, body


def test_it_stores_into_shared_with_the_server_admins_grant(world: World) -> None:
    t = world.tiers
    writer, _ = _mint(t.server_admin, name="w", tenant="acme", write_scopes=["acme:main", "shared"])
    status, body = writer.post(
        "/api/store", {"scope": "shared", "category": "c", "title": "Holiday", "content": "Dec 24"}
    )
    assert status == 201, body
    assert body["id"] in _search_ids(world.globex_reader, "holiday")
    assert body["id"] not in _search_ids(t.outsider, "holiday")


@pytest.mark.parametrize("name", ["shared", "_private", "_"])
def test_it_refuses_reserved_scope_names(world: World, name: str) -> None:
    status, body = world.tiers.owner.post("/api/admin/scopes", {"name": name})
    assert status == 400 and body["error"]["details"]["field"] == "name", body
    status, body = world.tiers.server_admin.post(
        "/api/admin/tenants", {"name": "newco", "scopes": [name]}
    )
    assert status == 400 and body["error"]["details"]["field"] == "scopes", body


@pytest.mark.parametrize("name", ["shared", "_shared", "_ops"])
def test_it_refuses_reserved_tenant_names(world: World, name: str) -> None:
    status, body = world.tiers.server_admin.post("/api/admin/tenants", {"name": name})
    assert status == 400 and body["error"]["details"]["field"] == "name", body


def test_it_refuses_shared_as_a_home_scope(world: World) -> None:
    status, body = world.tiers.admin.call(
        "POST", "/api/keys", {"name": "k", "home_scope": "shared", "read_scopes": ["shared"]}
    )
    assert status == 400 and body["error"]["details"]["field"] == "home_scope", body


def test_it_keeps_the_internal_tenant_out_of_reach(world: World) -> None:
    sa = world.tiers.server_admin
    names = [t["name"] for t in sa.call("GET", "/api/admin/tenants")[1]["tenants"]]
    assert "_shared" not in names and "acme" in names
    missing = sa.call("POST", "/api/admin/tenants/nowhere/suspend")
    assert sa.call("POST", "/api/admin/tenants/_shared/suspend") == missing
    gone = sa.delete("/api/admin/tenants/nowhere")
    assert sa.call("DELETE", "/api/admin/tenants/_shared") == gone
    assert sa.call("GET", "/api/keys?tenant=_shared")[0] == 404
    assert world.shared_id in _search_ids(world.acme_reader, "wifi")
