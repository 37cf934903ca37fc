"""Management endpoints: tenants (server admins), keys, OAuth clients (docs/api.md)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from ctx.api.common import body
from ctx.api.routing import READ, Op, created, endpoint
from ctx.ops import tenancy as ops
from ctx.ops import transfer


def _query_tenant(request: Request) -> dict[str, Any]:
    """`?tenant=` works for a key's creation too, when the body names none."""
    named = request.query_params.get("tenant")
    return {"tenant": named} if named is not None and "tenant" not in body(request) else {}


tenants = endpoint(
    get=Op(ops.tenants_list, ops.NoInput, bucket=READ),
    post=Op(ops.tenant_create, ops.TenantCreateInput, status=created),
)
tenant = endpoint(delete=Op(ops.tenant_delete, ops.TenantInput))
tenant_suspend = endpoint(post=Op(ops.tenant_suspend, ops.TenantInput))
tenant_resume = endpoint(post=Op(ops.tenant_resume, ops.TenantInput))
keys = endpoint(
    get=Op(ops.keys_list, ops.TenantFilter, bucket=READ),
    post=Op(ops.key_create, ops.KeyCreateInput, status=created, more=_query_tenant),
)
key = endpoint(
    patch=Op(ops.key_update, ops.KeyUpdateInput),
    delete=Op(ops.key_revoke, ops.KeyInput),
)
clients = endpoint(
    get=Op(ops.clients_list, ops.NoInput, bucket=READ),
    post=Op(ops.client_create, ops.ClientCreateInput, status=created),
)
client = endpoint(delete=Op(ops.client_delete, ops.ClientInput))


def _archive(payload: Any) -> tuple[Any, str, str]:
    return payload["file"], "application/gzip", payload["filename"]


# A tenant's archive (ctx/ops/transfer.py): its owner takes it and restores it.
tenant_export = endpoint(
    get=Op(transfer.tenant_export, transfer.ExportInput, bucket=READ, file=_archive)
)
tenant_import = endpoint(post=Op(transfer.tenant_import, transfer.ImportInput, raw_body="archive"))
