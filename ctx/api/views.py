"""The HTTP API's block, search and identity endpoints: each one operation (ctx/ops)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny

from ctx.api.routing import READ, WRITE, Op, action_view, created, created_or_ok, endpoint
from ctx.ops import blocks, history, search, tenancy
from ctx.ops import health as health_ops
from dream import operations as dream_ops

store = endpoint(post=Op(blocks.store, blocks.StoreInput, status=created_or_ok))
# A batch costs one write token per block it writes.
store_batch = endpoint(
    post=Op(blocks.store_batch, blocks.StoreBatchInput, cost=lambda data: len(data.blocks))
)
query = endpoint(post=Op(search.query, search.QueryInput, bucket=READ))
search_ = endpoint(post=Op(search.search, search.SearchInput, bucket=READ))
blocks_list = endpoint(get=Op(blocks.list_blocks, blocks.ListInput, bucket=READ))
whoami = endpoint(get=Op(tenancy.whoami, tenancy.NoInput, bucket=READ))
block_history = endpoint(get=Op(history.history, history.HistoryInput, bucket=READ))
version_restore = endpoint(post=Op(history.restore_version, history.VersionInput))
scope_create = endpoint(post=Op(tenancy.scope_create, tenancy.ScopeCreateInput, status=created))

# /api/manage's actions: each one operation with its input and bucket.
MANAGE_ACTIONS: dict[str, Op] = {
    "stats": Op(blocks.stats, blocks.StatsInput, bucket=READ),
    "get": Op(blocks.get, blocks.GetInput, bucket=READ),
    "list-categories": Op(blocks.categories, blocks.ScopesInput, bucket=READ),
    "recent": Op(blocks.recent, blocks.RecentInput, bucket=READ),
    "update": Op(blocks.update, blocks.UpdateInput, bucket=WRITE),
    "delete": Op(blocks.delete, blocks.GetInput, bucket=WRITE),
    "restore": Op(blocks.restore, blocks.GetInput, bucket=WRITE),  # undoes delete
    # The design's names for what has its own endpoint now (/api/keys, /api/oauth/clients,
    # /api/dream/mode): the same operations, inputs and buckets, for clients written to it.
    "api-key-create": Op(tenancy.key_create, tenancy.KeyCreateInput, status=created),
    "api-key-list": Op(tenancy.keys_list, tenancy.TenantFilter, bucket=READ),
    "api-key-delete": Op(tenancy.key_revoke, tenancy.KeyInput),
    "mcp-client-create": Op(tenancy.client_create, tenancy.ClientCreateInput, status=created),
    "mcp-client-list": Op(tenancy.clients_list, tenancy.NoInput, bucket=READ),
    "mcp-client-delete": Op(tenancy.client_delete, tenancy.ClientInput),
    "dream-mode": Op(dream_ops.mode, dream_ops.ModeMaybe),
}


ManageView = action_view(MANAGE_ACTIONS)


class SchemaView(SpectacularAPIView):
    """`GET /api/schema`: the OpenAPI schema, to anyone (it describes, it holds no data)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]


def health(request: HttpRequest) -> JsonResponse:
    """Anonymous: each dependency's state; 503 only when the database is down."""
    payload = health_ops.health()
    return JsonResponse(payload, status=503 if payload["status"] == "unavailable" else 200)
