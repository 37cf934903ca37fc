"""The settings API (admins): list, read, set, unset overrides; the audit trail."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import validation as v
from ctx.api.common import body as _body
from ctx.api.common import ok
from ctx.api.common import principal as _principal
from ctx.errors import ValidationFailed
from ctx.permissions import require_tier

from . import selectors, services


def _tenant_param(data: Any) -> str | None:
    return v.string(data, "tenant", max_len=64, required=False) or None


def _target(request: Request, data: Any) -> Any:
    return services.target_tenant(_principal(request), _tenant_param(data))


class SettingListView(APIView):
    def get(self, request: Request) -> Response:
        tenant = _target(request, request.query_params.dict())
        rows = selectors.settings_for(_principal(request), tenant)
        return ok({"tenant": tenant.name if tenant else None, "settings": rows})

    def put(self, request: Request) -> Response:
        """Several overrides at once: {"values": {KEY: value, ...}, "tenant": optional}."""
        data = _body(request)
        values = data.get("values")
        if not isinstance(values, dict):
            raise ValidationFailed("'values' must be an object.", details={"field": "values"})
        return _set(request, values, data)


class SettingView(APIView):
    def get(self, request: Request, key: str) -> Response:
        tenant = _target(request, request.query_params.dict())
        knob = selectors.knob_for(_principal(request), key)
        return ok({"setting": selectors.describe(knob, _id(tenant))})

    def put(self, request: Request, key: str) -> Response:
        data = _body(request)
        if "value" not in data:
            raise ValidationFailed("'value' is required.", details={"field": "value"})
        return _set(request, {key: data["value"]}, data)

    def delete(self, request: Request, key: str) -> Response:
        params = request.query_params.dict()
        tenant = _target(request, params)
        services.settings_unset(
            principal=_principal(request), key=key, tenant=_tenant_param(params)
        )
        knob = services.knob_named(key)
        return ok({"action": "unset", "setting": selectors.describe(knob, _id(tenant))})


class SettingAuditView(APIView):
    def get(self, request: Request) -> Response:
        params = request.query_params.dict()
        require_tier(_principal(request))
        tenant = _target(request, params) if _tenant_param(params) else None
        limit = _limit(params.get("limit", "100"))
        rows = selectors.audit_for(_principal(request), tenant, limit)
        return ok({"count": len(rows), "audit": rows})


def _limit(raw: str) -> int:
    try:
        limit = int(raw)
    except ValueError:
        limit = 0
    if not 1 <= limit <= 1000:
        raise ValidationFailed("'limit' must be between 1 and 1000.", details={"field": "limit"})
    return limit


def _id(tenant: Any) -> int | None:
    return tenant.pk if tenant else None


def _set(request: Request, values: dict[str, Any], data: Any) -> Response:
    principal = _principal(request)
    tenant_name = _tenant_param(data)
    rows = services.settings_set(principal=principal, changes=values, tenant=tenant_name)
    tenant = services.target_tenant(principal, tenant_name)
    shown = [selectors.describe(services.knob_named(r.key), _id(tenant)) for r in rows]
    return ok({"action": "set", "settings": shown})
