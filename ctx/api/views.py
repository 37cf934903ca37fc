"""The HTTP API: thin DRF views over the service layer. No rules live here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import selectors, services
from ctx import validation as v
from ctx.api import presenters
from ctx.api.common import body, ok, principal
from ctx.errors import CtxError, ErrorCode
from ctx.models import Block
from ctx.permissions import require_tier
from ctx.principal import Principal
from ctx.services import BlockInput
from retrieval import lexical

MAX_BATCH = 500


# Shared helpers live in ctx.api.common and the tier rule in ctx.permissions.
_principal = principal
_body = body


def block_input(data: dict[str, Any]) -> BlockInput:
    v.require_object(data)
    return BlockInput(
        category=v.string(data, "category", max_len=v.MAX_CATEGORY),
        title=v.string(data, "title", max_len=v.MAX_TITLE),
        content=v.content(data) or "",
        tags=v.tags(data),
        metadata=v.metadata(data),
        type=v.block_type(data),
        valid_from=v.timestamp(data, "valid_from"),
        valid_to=v.timestamp(data, "valid_to"),
        source=v.string(data, "source", max_len=200, required=False),
        source_time=v.timestamp(data, "source_time"),
        sensitivity=v.sensitivity(data),
    )


def _scope_arg(data: dict[str, Any]) -> str | None:
    return v.string(data, "scope", max_len=100, required=False) or None


# Extra fields of a store response, computed after the write committed (dream's guard adds
# near-duplicate hints). Apps register here in ready(); a hook must fail open itself.
STORE_HINTS: list[Callable[[Principal, Block], dict[str, Any]]] = []


class StoreView(APIView):
    def post(self, request: Request) -> Response:
        data = _body(request)
        principal = _principal(request)
        result = services.block_upsert(
            principal=principal, scope=_scope_arg(data), data=block_input(data)
        )
        status = 201 if result.action == "created" else 200
        block = result.block
        body: dict[str, Any] = {
            "action": result.action,
            "id": str(block.pk),
            "scope": block.scope.name,
            **store_sensitivity(result),
        }
        for hint in STORE_HINTS:
            body.update(hint(principal, block))
        return ok(body, status)


class StoreBatchView(APIView):
    def post(self, request: Request) -> Response:
        data = _body(request)
        blocks = data.get("blocks")
        if not isinstance(blocks, list) or not blocks:
            raise CtxError("'blocks' must be a non-empty list.", code=ErrorCode.VALIDATION_ERROR)
        if len(blocks) > MAX_BATCH:
            raise CtxError(
                f"'blocks' has more than {MAX_BATCH} items.", code=ErrorCode.PAYLOAD_TOO_LARGE
            )
        items = [_indexed(i, block_input, b) for i, b in enumerate(blocks)]
        results = services.block_upsert_many(
            principal=_principal(request), scope=_scope_arg(data), items=items
        )
        rows = [
            {"id": str(r.block.pk), "action": r.action, **store_sensitivity(r)} for r in results
        ]
        return ok({"results": rows})


def store_sensitivity(result: services.UpsertResult) -> dict[str, Any]:
    """The stored level and the detectors that fired (names only, never the matched text)."""
    return {
        "sensitivity": result.block.sensitivity,
        "sensitivity_reasons": list(result.sensitivity_reasons),
    }


def _indexed(index: int, parse: Callable[[Any], BlockInput], item: Any) -> BlockInput:
    """Parse one batch item; an error names the item so nothing is silently dropped."""
    try:
        return parse(item)
    except CtxError as exc:
        exc.message = f"blocks[{index}]: {exc.message}"
        exc.details = {**(exc.details or {}), "index": index}
        raise


class QueryView(APIView):
    def post(self, request: Request) -> Response:
        from retrieval.query import QueryParams, run_query

        params = QueryParams.from_request(_body(request))
        return ok(run_query(_principal(request), params))


class SearchView(APIView):
    def post(self, request: Request) -> Response:
        principal = _principal(request)
        params = lexical.SearchParams.from_request(_body(request))
        hits = lexical.search(principal, params)
        results = [
            {**presenters.summary(h.block), "score": round(h.score, 6)}
            for h in hits
            if h.block is not None
        ]
        return ok({"query": params.query, "count": len(results), "results": results})


def _manage_get(p: Principal, data: dict[str, Any]) -> dict[str, Any]:
    block = selectors.get_block_for(p, v.string(data, "id", max_len=64))
    return {"block": presenters.full(block)}


def _manage_update(p: Principal, data: dict[str, Any]) -> dict[str, Any]:
    fields = data.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise CtxError("'fields' must be a non-empty object.", code=ErrorCode.VALIDATION_ERROR)
    block = services.block_update(
        principal=p, block_id=v.string(data, "id", max_len=64), fields=_update_fields(fields)
    )
    return {"action": "updated", "block": presenters.full(block)}


def _update_fields(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(fields) - set(services.UPDATABLE))
    if unknown:
        raise CtxError(
            f"Fields that cannot be updated: {', '.join(unknown)}.", code=ErrorCode.VALIDATION_ERROR
        )
    parsers: dict[str, Callable[[], Any]] = {
        "category": lambda: v.string(fields, "category", max_len=v.MAX_CATEGORY),
        "title": lambda: v.string(fields, "title", max_len=v.MAX_TITLE),
        "content": lambda: v.content(fields),
        "tags": lambda: v.tags(fields),
        "metadata": lambda: v.metadata(fields),
        "type": lambda: v.block_type(fields),
        "valid_from": lambda: v.timestamp(fields, "valid_from"),
        "valid_to": lambda: v.timestamp(fields, "valid_to"),
        "sensitivity": lambda: v.sensitivity(fields),
    }
    return {name: parsers[name]() for name in fields}


def _manage_delete(p: Principal, data: dict[str, Any]) -> dict[str, Any]:
    block = services.block_archive(principal=p, block_id=v.string(data, "id", max_len=64))
    return {"action": "archived", "id": str(block.pk)}


def _manage_stats(p: Principal, data: dict[str, Any]) -> dict[str, Any]:
    scope_ids = selectors.readable_scope_ids(p, v.scope_names(data))
    return {"stats": selectors.block_stats(p, scope_ids)}


def _manage_categories(p: Principal, data: dict[str, Any]) -> dict[str, Any]:
    scope_ids = selectors.readable_scope_ids(p, v.scope_names(data))
    return {"categories": selectors.categories(p, scope_ids)}


MANAGE_ACTIONS: dict[str, Callable[[Principal, dict[str, Any]], dict[str, Any]]] = {
    "stats": _manage_stats,
    "get": _manage_get,
    "list-categories": _manage_categories,
    "update": _manage_update,
    "delete": _manage_delete,
}


class ManageView(APIView):
    def post(self, request: Request) -> Response:
        data = _body(request)
        action = data.get("action")
        handler = MANAGE_ACTIONS.get(action) if isinstance(action, str) else None
        if handler is None:
            raise CtxError(
                f"Unknown action; use one of: {', '.join(MANAGE_ACTIONS)}.",
                code=ErrorCode.UNKNOWN_ACTION,
            )
        return ok(handler(_principal(request), data))


class WhoAmIView(APIView):
    def get(self, request: Request) -> Response:
        p = _principal(request)
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
        p = _principal(request)
        require_tier(p)
        data = _body(request)
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
