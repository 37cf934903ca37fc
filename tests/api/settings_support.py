"""Shared by the settings API tests: a server admin beside the canonical cast, PUT/DELETE."""

from __future__ import annotations

import json
from typing import Any

from ctx import services
from ctx.models import ApiKey, Tenant
from tests.conftest import Api, Cast


def server_admin() -> Api:
    """A server admin (ApiKey.is_admin) in a tenant of its own, `ops`."""
    return server_admin_key()[1]


def server_admin_key() -> tuple[ApiKey, Api]:
    ops = Tenant.objects.filter(name="ops").first() or services.tenant_create(name="ops")
    key, raw = services.key_create(
        tenant=ops, name="root", home="ops:main", is_admin=True, role=ApiKey.Role.OWNER
    )
    return key, Api(raw)


def globex_owner(cast: Cast) -> Api:
    _, raw = services.key_create(
        tenant=cast.globex, name="boss", home="globex:main", role=ApiKey.Role.OWNER
    )
    return Api(raw)


def send(api: Api, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body) if body is not None else ""
    call = getattr(api.client, method.lower())
    resp = call(path, data=data, content_type="application/json", headers=api._headers())
    return resp.status_code, json.loads(resp.content)


def put(api: Api, key: str, value: Any, tenant: str | None = None) -> tuple[int, Any]:
    body: dict[str, Any] = {"value": value}
    if tenant is not None:
        body["tenant"] = tenant
    return send(api, "PUT", f"/api/settings/{key}", body)


def setting(api: Api, key: str, **params: Any) -> dict[str, Any]:
    status, body = api.get(f"/api/settings/{key}", **params)
    assert status == 200, body
    return dict(body["setting"])
