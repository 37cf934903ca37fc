"""The tier matrix: every management endpoint x every tier -> the status a user sees.

Refusals share one 403 body byte for byte; targets in another tenant answer the 404 a missing
target gets.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ctx.errors import Forbidden
from ctx.oauth import clients
from ctx.permissions import TIER_MESSAGE
from ctx.selectors import principal_from_key
from tests.tenancy.conftest import CALLERS, Tiers

FORBIDDEN_BODY = json.dumps(Forbidden(TIER_MESSAGE).envelope(), separators=(",", ":")).encode()
CALLBACK = "https://claude.ai/api/mcp/auth_callback"

Request = Callable[[Tiers], tuple[str, str, Any]]


def _acme_client(t: Tiers) -> str:
    owner = principal_from_key(t.keys["owner2"])
    return str(
        clients.client_create(principal=owner, name="c", redirect_uris=[CALLBACK]).app.client_id
    )


def _key(role: str, **extra: Any) -> Request:
    return lambda t: ("POST", "/api/keys", {"name": "k", "role": role, **extra})


def _revoke(target: str) -> Request:
    return lambda t: ("DELETE", f"/api/keys/{t.keys[target].prefix}", None)


def _manage(action: str, **fields: Any) -> Request:
    return lambda t: ("POST", "/api/manage", {"action": action, **fields})


# endpoint -> (request, expected status for server_admin, owner, admin, member, outsider)
MATRIX: dict[str, tuple[Request, tuple[int, int, int, int, int]]] = {
    "tenants list": (lambda t: ("GET", "/api/admin/tenants", None), (200, 403, 403, 403, 403)),
    "tenant create": (
        lambda t: ("POST", "/api/admin/tenants", {"name": "newco"}),
        (201, 403, 403, 403, 403),
    ),
    "tenant suspend": (
        lambda t: ("POST", "/api/admin/tenants/acme/suspend", None),
        (200, 403, 403, 403, 403),
    ),
    "tenant resume": (
        lambda t: ("POST", "/api/admin/tenants/acme/resume", None),
        (200, 403, 403, 403, 403),
    ),
    "tenant delete": (
        lambda t: ("DELETE", "/api/admin/tenants/acme", None),
        (200, 403, 403, 403, 403),
    ),
    "keys list": (lambda t: ("GET", "/api/keys", None), (200, 200, 200, 403, 200)),
    "create member key": (_key("member"), (201, 201, 201, 403, 201)),
    "create admin key": (_key("admin"), (201, 201, 403, 403, 201)),
    "create owner key": (_key("owner"), (201, 201, 403, 403, 201)),
    "create server-admin key": (_key("member", is_admin=True), (201, 403, 403, 403, 403)),
    "create key in acme": (_key("member", tenant="acme"), (201, 201, 201, 403, 404)),
    "list keys of acme": (
        lambda t: ("GET", "/api/keys?tenant=acme", None),
        (200, 200, 200, 403, 404),
    ),
    "revoke member key": (_revoke("member2"), (200, 200, 200, 403, 404)),
    "revoke admin key": (_revoke("admin2"), (200, 200, 403, 403, 404)),
    "revoke owner key": (_revoke("owner2"), (200, 200, 403, 403, 404)),
    "clients list": (lambda t: ("GET", "/api/oauth/clients", None), (200, 200, 200, 403, 200)),
    "client create": (
        lambda t: ("POST", "/api/oauth/clients", {"name": "c", "redirect_uris": [CALLBACK]}),
        (201, 201, 201, 403, 201),
    ),
    "client delete": (
        lambda t: ("DELETE", f"/api/oauth/clients/{_acme_client(t)}", None),
        (200, 200, 200, 403, 404),
    ),
    "scope create": (
        lambda t: ("POST", "/api/admin/scopes", {"name": "extra"}),
        (201, 201, 201, 403, 201),
    ),
    # The design's /api/manage names: the same operations, so the same tiers.
    "manage api-key-list": (_manage("api-key-list"), (200, 200, 200, 403, 200)),
    "manage api-key-create member": (
        _manage("api-key-create", name="k", role="member"),
        (201, 201, 201, 403, 201),
    ),
    "manage api-key-create owner": (
        _manage("api-key-create", name="k", role="owner"),
        (201, 201, 403, 403, 201),
    ),
    "manage api-key-delete member": (
        lambda t: _manage("api-key-delete", prefix=t.keys["member2"].prefix)(t),
        (200, 200, 200, 403, 404),
    ),
    "manage mcp-client-list": (_manage("mcp-client-list"), (200, 200, 200, 403, 200)),
    "manage mcp-client-create": (
        _manage("mcp-client-create", name="c", redirect_uris=[CALLBACK]),
        (201, 201, 201, 403, 201),
    ),
    "manage mcp-client-delete": (
        lambda t: _manage("mcp-client-delete", client_id=_acme_client(t))(t),
        (200, 200, 200, 403, 404),
    ),
    "manage dream-mode read": (_manage("dream-mode"), (200, 200, 200, 200, 200)),
    "manage dream-mode set": (_manage("dream-mode", mode="off"), (200, 403, 403, 403, 403)),
}

CASES = [
    pytest.param(endpoint, caller, statuses[i], id=f"{endpoint}-{caller}")
    for endpoint, (_, statuses) in MATRIX.items()
    for i, caller in enumerate(CALLERS)
]


@pytest.mark.parametrize(("endpoint", "caller", "expected"), CASES)
def test_it_answers_each_tier_as_the_matrix_says(
    tiers: Tiers, endpoint: str, caller: str, expected: int
) -> None:
    method, path, body = MATRIX[endpoint][0](tiers)
    client = tiers.by_name(caller)
    status, data = client.call(method, path, body)
    assert status == expected, data
    if expected == 403:
        assert client.last == FORBIDDEN_BODY  # byte for byte, whatever the rule that failed
    if expected == 404:  # exactly what a target that never existed gets
        seen = client.last
        client.call(*_missing(method, path, body))
        assert client.last == seen and data["error"]["code"] == "not_found"


def _missing(method: str, path: str, body: Any) -> tuple[str, str, Any]:
    """The same request aimed at a tenant or an id that does not exist."""
    if "tenant=acme" in path:
        return method, path.replace("tenant=acme", "tenant=nosuch"), body
    if isinstance(body, dict) and body.get("tenant") == "acme":
        return method, path, {**body, "tenant": "nosuch"}
    if isinstance(body, dict) and body.get("action"):  # /api/manage: the id is in the body
        target = "client_id" if "client_id" in body else "prefix"
        return method, path, {**body, target: "doesnotexist"}
    return method, path.rsplit("/", 1)[0] + "/doesnotexist", body
