"""The write-only secrets API (docs/secrets.md): each endpoint one operation."""

from __future__ import annotations

from ctx.api.routing import READ, Op, created_or_ok, endpoint
from secrets import operations as ops  # the project app (it shadows the stdlib module)

secrets_list = endpoint(get=Op(ops.secrets_list, ops.ListInput, bucket=READ))
secret = endpoint(
    get=Op(ops.secret_get, ops.SecretInput, bucket=READ),
    put=Op(ops.secret_put, ops.SecretPutInput, status=created_or_ok),
    delete=Op(ops.secret_delete, ops.SecretInput),
)
