"""Settings operations (admins): list, read, set, unset overrides; the audit trail."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from ctx.errors import ValidationFailed
from ctx.models import Tenant
from ctx.ops.inputs import Input, OptionalTenant
from ctx.permissions import require_tier
from ctx.principal import Principal

from . import selectors, services


class TenantTarget(Input):
    tenant: OptionalTenant = None


def _id(tenant: Tenant | None) -> int | None:
    return tenant.pk if tenant else None


def settings_list(p: Principal, data: TenantTarget) -> dict[str, Any]:
    tenant = services.target_tenant(p, data.tenant or None)
    rows = selectors.settings_for(p, tenant)
    return {"tenant": tenant.name if tenant else None, "settings": rows}


class KeyInput(TenantTarget):
    key: Annotated[str, Field(description="A setting's name, e.g. CTX_RRF_K.")]


def setting_get(p: Principal, data: KeyInput) -> dict[str, Any]:
    tenant = services.target_tenant(p, data.tenant or None)
    knob = selectors.knob_for(p, data.key)
    return {"setting": selectors.describe(knob, _id(tenant))}


def _values(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationFailed("'values' must be an object.", details={"field": "values"})
    return value


class SetManyInput(TenantTarget):
    values: Annotated[dict[str, Any], Field(validate_default=True), BeforeValidator(_values)] = None  # type: ignore[assignment]  # absent: the same message as a wrong type


def _set(p: Principal, values: dict[str, Any], tenant_name: str | None) -> dict[str, Any]:
    rows = services.settings_set(principal=p, changes=values, tenant=tenant_name)
    tenant = services.target_tenant(p, tenant_name)
    shown = [selectors.describe(services.knob_named(r.key), _id(tenant)) for r in rows]
    return {"action": "set", "settings": shown}


def settings_set(p: Principal, data: SetManyInput) -> dict[str, Any]:
    return _set(p, data.values, data.tenant or None)


class SetOneInput(KeyInput):
    value: Any = None

    @classmethod
    def parse(cls, data: Any) -> SetOneInput:
        if isinstance(data, dict) and "value" not in data:
            raise ValidationFailed("'value' is required.", details={"field": "value"})
        return super().parse(data)


def setting_set(p: Principal, data: SetOneInput) -> dict[str, Any]:
    return _set(p, {data.key: data.value}, data.tenant or None)


def setting_unset(p: Principal, data: KeyInput) -> dict[str, Any]:
    tenant = services.target_tenant(p, data.tenant or None)
    services.settings_unset(principal=p, key=data.key, tenant=data.tenant or None)
    knob = services.knob_named(data.key)
    return {"action": "unset", "setting": selectors.describe(knob, _id(tenant))}


def _limit(value: Any) -> int:
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if not 1 <= limit <= 1000:
        raise ValidationFailed("'limit' must be between 1 and 1000.", details={"field": "limit"})
    return limit


class AuditInput(TenantTarget):
    limit: Annotated[int, Field(ge=1, le=1000), BeforeValidator(_limit)] = 100


def audit(p: Principal, data: AuditInput) -> dict[str, Any]:
    require_tier(p)
    tenant = services.target_tenant(p, data.tenant or None) if data.tenant else None
    rows = selectors.audit_for(p, tenant, data.limit)
    return {"count": len(rows), "audit": rows}
