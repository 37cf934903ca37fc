"""The HTTP API: thin DRF views over the service layer. No rules live here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import services
from ctx import validation as v
from ctx.api.common import body, ok, principal
from ctx.errors import CtxError, ErrorCode
from ctx.ops import blocks, search
from ctx.ops.inputs import Input
from ctx.permissions import require_tier
from ctx.principal import Principal


class StoreView(APIView):
    def post(self, request: Request) -> Response:
        payload = blocks.store(principal(request), blocks.StoreInput.parse(request.data))
        return ok(payload, 201 if payload["action"] == "created" else 200)


class StoreBatchView(APIView):
    def post(self, request: Request) -> Response:
        data = blocks.StoreBatchInput.parse(request.data)
        return ok(blocks.store_batch(principal(request), data))


class QueryView(APIView):
    def post(self, request: Request) -> Response:
        return ok(search.query(principal(request), search.QueryInput.parse(request.data)))


class SearchView(APIView):
    def post(self, request: Request) -> Response:
        return ok(search.search(principal(request), search.SearchInput.parse(request.data)))


# /api/manage's actions: each one operation and its input.
MANAGE_ACTIONS: dict[str, tuple[Callable[[Principal, Any], Any], type[Input]]] = {
    "stats": (blocks.stats, blocks.ScopesInput),
    "get": (blocks.get, blocks.GetInput),
    "list-categories": (blocks.categories, blocks.ScopesInput),
    "update": (blocks.update, blocks.UpdateInput),
    "delete": (blocks.delete, blocks.GetInput),
}


class ManageView(APIView):
    def post(self, request: Request) -> Response:
        data = body(request)
        action = data.get("action")
        handler = MANAGE_ACTIONS.get(action) if isinstance(action, str) else None
        if handler is None:
            raise CtxError(
                f"Unknown action; use one of: {', '.join(MANAGE_ACTIONS)}.",
                code=ErrorCode.UNKNOWN_ACTION,
            )
        operation, model = handler
        fields = {k: val for k, val in data.items() if k != "action"}
        return ok(operation(principal(request), model.parse(fields)))


class WhoAmIView(APIView):
    def get(self, request: Request) -> Response:
        p = principal(request)
        names = {i: n for n, i in p.scope_names.items()}
        return ok(
            {
                "key": {"name": p.key.name, "prefix": p.key.prefix},
                "tenant": p.tenant_name,
                "home_scope": names.get(p.home_scope_id),
                "read_scopes": sorted(names[i] for i in p.read_scope_ids if i in names),
                "write_scopes": sorted(names[i] for i in p.write_scope_ids if i in names),
                "is_admin": p.is_admin,
                "role": p.role,
            }
        )


class ScopeCreateView(APIView):
    def post(self, request: Request) -> Response:
        p = principal(request)
        require_tier(p)
        data = body(request)
        scope = services.scope_grant_new(
            principal=p,
            name=v.string(data, "name", max_len=100),
            description=v.string(data, "description", max_len=500, required=False),
        )
        return ok({"name": scope.name}, 201)


def health(request: HttpRequest) -> JsonResponse:
    """Anonymous liveness: says whether the database answers, nothing about internals."""
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
        status, code = "ok", 200
    except Exception:
        status, code = "unavailable", 503
    return JsonResponse({"status": status}, status=code)
