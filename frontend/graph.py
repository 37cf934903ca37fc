"""The ego graph of a block: a page with the controls, and its data as JSON for Cytoscape.js
(frontend/static/frontend/ui-graph.js). Both call the ego-graph operation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from ctx.principal import Principal
from dream import operations as dream_ops
from frontend.pages import page, signed_in


def _params(request: HttpRequest, block_id: str) -> dict[str, Any]:
    data: dict[str, Any] = {"id": block_id, "limit": request.GET.get("limit") or "200"}
    for name in ("hops", "min_confidence", "link_class"):
        if request.GET.get(name):
            data[name] = request.GET[name]
    return data


@require_GET
@signed_in
def graph(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    params = _params(request, block_id)
    found = dream_ops.ego_graph(principal, dream_ops.EgoInput.parse(params))  # 404 first
    root = next(n for n in found["nodes"] if n["id"] == found["root"])
    context = {
        "root": root,
        "hops": int(params.get("hops") or 1),
        "min_confidence": float(params.get("min_confidence") or 0),
        "src": f"/graph/{root['id']}/data?{request.GET.urlencode()}",
        "count": {"nodes": len(found["nodes"]), "edges": len(found["edges"])},
    }
    return page(request, principal, "graph.html", context)


@require_GET
@signed_in
def graph_data(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    found = dream_ops.ego_graph(principal, dream_ops.EgoInput.parse(_params(request, block_id)))
    return JsonResponse(found)
