"""The settings API (admins; docs/settings.md): each endpoint one operation."""

from __future__ import annotations

from ctx.api.routing import READ, Op, endpoint
from ctx.overrides import operations as ops

settings_list = endpoint(
    get=Op(ops.settings_list, ops.TenantTarget, bucket=READ),
    put=Op(ops.settings_set, ops.SetManyInput),
)
audit = endpoint(get=Op(ops.audit, ops.AuditInput, bucket=READ))
setting = endpoint(
    get=Op(ops.setting_get, ops.KeyInput, bucket=READ),
    put=Op(ops.setting_set, ops.SetOneInput),
    delete=Op(ops.setting_unset, ops.KeyInput),
)
