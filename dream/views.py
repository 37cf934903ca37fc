"""The dream HTTP API: thin DRF views over dream's services and selectors."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import selectors
from ctx import validation as v
from ctx.api.common import ok
from ctx.api.common import principal as _principal
from ctx.errors import Forbidden, ValidationFailed
from ctx.permissions import TIER_MESSAGE
from ctx.principal import Principal
from ctx.services import writable_scope
from dream import digest, graph, guard, presenters, services
from dream import selectors as dream_selectors
from dream.models import GuardStatus, LinkClass


def _params(request: Request) -> dict[str, Any]:
    return {k: request.query_params.get(k) for k in request.query_params}


def int_param(data: dict[str, Any], name: str, *, default: int, low: int, high: int) -> int:
    """An integer query parameter (query strings carry text) within bounds."""
    raw = data.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValidationFailed(f"'{name}' must be an integer.", details={"field": name}) from None
    return v.integer({name: value}, name, default=default, low=low, high=high)


def float_param(
    data: dict[str, Any], name: str, *, default: float, low: float, high: float
) -> float:
    raw = data.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValidationFailed(f"'{name}' must be a number.", details={"field": name}) from None
    if not low <= value <= high:  # NaN fails this too
        raise ValidationFailed(
            f"'{name}' must be between {low:g} and {high:g}.", details={"field": name}
        )
    return value


def choice_param(data: dict[str, Any], name: str, options: list[str]) -> str | None:
    raw = data.get(name)
    if raw is None or raw == "":
        return None
    if raw not in options:
        raise ValidationFailed(
            f"'{name}' must be one of {', '.join(options)}.", details={"field": name}
        )
    return str(raw)


def _scopes(p: Principal, data: dict[str, Any]) -> list[int]:
    return selectors.readable_scope_ids(p, v.scope_names(data))


class DreamModeView(APIView):
    def get(self, request: Request) -> Response:
        return ok({"mode": services.mode_get()})

    def post(self, request: Request) -> Response:
        p = _principal(request)
        if not p.is_admin:  # one switch for every tenant: server admins only
            raise Forbidden(TIER_MESSAGE)
        data = v.require_object(request.data)
        mode = v.string(data, "mode", max_len=16)
        row = services.mode_set(mode=mode, by=p.key.name)
        return ok({"mode": row.mode})


class DreamStatsView(APIView):
    def get(self, request: Request) -> Response:
        p = _principal(request)
        scope_ids = _scopes(p, _params(request))
        return ok(
            {
                "mode": services.mode_get(),
                "queue": dream_selectors.queue_stats(scope_ids, now=timezone.now()),
                "links": dream_selectors.link_counts(scope_ids),
            }
        )


class DreamReviewView(APIView):
    def get(self, request: Request) -> Response:
        p = _principal(request)
        data = _params(request)
        found = dream_selectors.review_links(
            p,
            _scopes(p, data),
            below=settings.CTX["CTX_DREAM_REVIEW_BELOW"],
            link_class=choice_param(data, "link_class", LinkClass.values),
            limit=int_param(data, "limit", default=50, low=1, high=500),
        )
        links = [presenters.link(x) for x in found]
        return ok({"count": len(links), "links": links})


class DreamResolveView(APIView):
    def post(self, request: Request) -> Response:
        data = v.require_object(request.data)
        result = services.link_resolve(
            principal=_principal(request),
            link_id=data.get("link"),
            action=v.string(data, "action", max_len=16),
        )
        return ok(result)


class GuardListView(APIView):
    def get(self, request: Request) -> Response:
        p = _principal(request)
        data = _params(request)
        status = choice_param(data, "status", GuardStatus.values) or GuardStatus.OPEN
        flags = guard.flags_list(
            p,
            _scopes(p, data),
            status=status,
            limit=int_param(data, "limit", default=50, low=1, high=500),
        )
        items = [presenters.flag(f) for f in flags]
        return ok({"count": len(items), "flags": items})


class GuardStatsView(APIView):
    def get(self, request: Request) -> Response:
        p = _principal(request)
        return ok({"stats": guard.flags_stats(p, _scopes(p, _params(request)))})


class GuardResolveView(APIView):
    def post(self, request: Request) -> Response:
        data = v.require_object(request.data)
        flag = guard.flag_resolve(
            principal=_principal(request),
            flag_id=data.get("id"),
            action=v.string(data, "action", max_len=16),
        )
        return ok({"flag": presenters.flag(flag)})


class DigestView(APIView):
    def post(self, request: Request) -> Response:
        p = _principal(request)
        data = v.require_object(request.data)
        scope_id = writable_scope(p, v.string(data, "scope", max_len=100, required=False) or None)
        result, figures = digest.digest_build(scope_id=scope_id)
        body: dict[str, Any] = {"action": "empty", "id": None, **figures}
        if result is not None:
            body.update(action=result.action, id=str(result.block.pk))
        return ok(body)


class EgoGraphView(APIView):
    def get(self, request: Request) -> Response:
        data = _params(request)
        params = graph.EgoParams(
            block=v.string(data, "block", max_len=64),
            hops=int_param(data, "hops", default=1, low=1, high=graph.MAX_HOPS),
            limit=int_param(data, "limit", default=50, low=1, high=graph.MAX_NODES),
            min_confidence=float_param(data, "min_confidence", default=0.0, low=0.0, high=1.0),
            link_class=choice_param(data, "link_class", LinkClass.values),
        )
        return ok(graph.ego_graph(_principal(request), params))
