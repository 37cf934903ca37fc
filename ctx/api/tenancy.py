"""Management endpoints: tenants (server admins), keys, OAuth clients. Thin over ctx.tenancy.

Every rule (tiers, tenant reach, what a role may mint) lives in ctx.tenancy and
ctx.oauth.clients; these views parse, call one function and shape the answer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import tenancy
from ctx import validation as v
from ctx.api.common import body, ok, principal
from ctx.errors import ValidationFailed
from ctx.models import ApiKey, Tenant
from ctx.oauth import clients

MAX_SCOPE_LIST = v.MAX_SCOPES


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _tenant_param(request: Request, data: dict[str, Any] | None = None) -> str | None:
    raw = (data or {}).get("tenant", request.query_params.get("tenant"))
    if raw is None:
        return None
    return v.string({"tenant": raw}, "tenant", max_len=64)


# --- tenants -------------------------------------------------------------------------------


class TenantListView(APIView):
    def get(self, request: Request) -> Response:
        return ok({"tenants": tenancy.tenants_list(principal=principal(request))})

    def post(self, request: Request) -> Response:
        data = body(request)
        new = tenancy.tenant_create_with_owner(
            principal=principal(request),
            name=v.string(data, "name", max_len=64),
            display_name=v.string(data, "display_name", max_len=200, required=False),
            scopes=v.string_list(data, "scopes", max_items=MAX_SCOPE_LIST, max_len=100),
        )
        return ok(
            {
                "tenant": new.tenant.name,
                "scopes": sorted(new.tenant.scopes.values_list("name", flat=True)),
                "owner_key": new.raw_key,  # shown once
                "owner_prefix": new.owner.prefix,
            },
            201,
        )


class TenantView(APIView):
    def delete(self, request: Request, name: str) -> Response:
        counts = tenancy.tenant_delete(principal=principal(request), name=name)
        return ok({"tenant": name, "action": "deleted", "deleted": counts})


class TenantSuspendView(APIView):
    status = Tenant.Status.SUSPENDED

    def post(self, request: Request, name: str) -> Response:
        tenant = tenancy.tenant_set_status(
            principal=principal(request), name=name, status=self.status
        )
        return ok({"tenant": tenant.name, "status": tenant.status})


class TenantResumeView(TenantSuspendView):
    status = Tenant.Status.ACTIVE


# --- keys ----------------------------------------------------------------------------------


def key_summary(key: ApiKey) -> dict[str, Any]:
    """What a key listing shows: never the secret or its HMAC."""
    return {
        "prefix": key.prefix,
        "name": key.name,
        "tenant": key.tenant.name,
        "role": key.role,
        "is_admin": key.is_admin,
        "home_scope": key.home_scope.name,
        "read_scopes": sorted(s.name for s in key.read_scopes.all()),
        "write_scopes": sorted(s.name for s in key.write_scopes.all()),
        "active": key.active,
        "created_at": _iso(key.created_at),
        "last_used_at": _iso(key.last_used_at),
        "revoked_at": _iso(key.revoked_at),
    }


def _key_spec(data: dict[str, Any]) -> tenancy.KeySpec:
    role = data.get("role", ApiKey.Role.MEMBER)
    if role not in ApiKey.Role.values:
        raise ValidationFailed("'role' must be owner, admin or member.", details={"field": "role"})
    write = None
    if "write_scopes" in data:  # absent: the home scope; [] : a read-only key
        write = tuple(v.string_list(data, "write_scopes", max_items=MAX_SCOPE_LIST, max_len=100))
    return tenancy.KeySpec(
        name=v.string(data, "name", max_len=100),
        role=str(role),
        home=v.string(data, "home_scope", max_len=100, required=False) or None,
        read=tuple(v.string_list(data, "read_scopes", max_items=MAX_SCOPE_LIST, max_len=100)),
        write=write,
        is_admin=v.boolean(data, "is_admin"),
    )


class KeyListView(APIView):
    def get(self, request: Request) -> Response:
        keys = tenancy.keys_list(principal=principal(request), tenant=_tenant_param(request))
        return ok({"keys": [key_summary(k) for k in keys]})

    def post(self, request: Request) -> Response:
        data = body(request)
        key, raw = tenancy.key_create_for(
            principal=principal(request), spec=_key_spec(data), tenant=_tenant_param(request, data)
        )
        return ok({"key": raw, **key_summary(key)}, 201)  # the full key: shown once


class KeyView(APIView):
    def delete(self, request: Request, prefix: str) -> Response:
        key = tenancy.key_revoke_for(principal=principal(request), prefix=prefix)
        return ok({"action": "revoked", "prefix": key.prefix, "revoked_at": _iso(key.revoked_at)})


# --- OAuth clients -------------------------------------------------------------------------


def client_summary(app: Any) -> dict[str, Any]:
    return {
        "client_id": app.client_id,
        "name": app.name,
        "tenant": clients.tenant_of(app),
        "client_type": app.client_type,
        "redirect_uris": app.redirect_uris.split(),
        "registration": app.registration_source,
        "created_at": _iso(app.created),
    }


class ClientListView(APIView):
    def get(self, request: Request) -> Response:
        apps = clients.clients_list(principal=principal(request))
        return ok({"clients": [client_summary(a) for a in apps]})

    def post(self, request: Request) -> Response:
        data = body(request)
        new = clients.client_create(
            principal=principal(request),
            name=v.string(data, "name", max_len=255),
            redirect_uris=v.string_list(data, "redirect_uris", max_items=50, max_len=2000),
            confidential=v.boolean(data, "confidential"),
        )
        payload = client_summary(new.app)
        if new.client_secret:
            payload["client_secret"] = new.client_secret  # shown once
        return ok(payload, 201)


class ClientView(APIView):
    def delete(self, request: Request, client_id: str) -> Response:
        clients.client_delete(principal=principal(request), client_id=client_id)
        return ok({"action": "deleted", "client_id": client_id})
