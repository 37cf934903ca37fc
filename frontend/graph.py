"""The ego graph of a block: a page with the controls, and its data as JSON for Cytoscape.js
(frontend/static/frontend/ui-graph.js). Both call the ego-graph operation. The topic map of
each scope (Dream's digest) is the graph's second view."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from ctx.ops import blocks as block_ops
from ctx.principal import Principal
from dream import operations as dream_ops
from frontend import markdown
from frontend.pages import page, signed_in, writable_names


def _params(request: HttpRequest, block_id: str) -> dict[str, Any]:
    data: dict[str, Any] = {"id": block_id, "limit": request.GET.get("limit") or "200"}
    for name in ("hops", "min_confidence", "link_class", "per_node_cap", "category"):
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


@require_GET
@signed_in
def topics(request: HttpRequest, principal: Principal) -> HttpResponse:
    """The graph's second view: each readable scope's topic map (its digest block: categories,
    their top tags and most central blocks), rendered as Markdown; a writer may rebuild it."""
    maps = []
    for name in sorted(principal.scope_names):
        data = {"scope": [name], "type": ["digest"], "limit": 1}
        found = block_ops.list_blocks(principal, block_ops.ListInput.parse(data))["results"]
        full = _digest(principal, found[0]["id"]) if found else None
        maps.append({"scope": name, "block": full, "writable": name in writable_names(principal)})
    return page(request, principal, "topics.html", {"maps": maps})


def _digest(principal: Principal, block_id: str) -> dict[str, Any]:
    block = dict(block_ops.get(principal, block_ops.GetInput.parse({"id": block_id}))["block"])
    return {**block, "html": markdown.render(str(block["content"]))}


@require_POST
@signed_in
def topics_build(request: HttpRequest, principal: Principal) -> HttpResponse:
    """Rebuild a scope's topic map now (Dream rebuilds it by itself after writes settle)."""
    data = {"scope": request.POST.get("scope", "")}
    dream_ops.digest_build(principal, dream_ops.DigestInput.parse(data))
    return HttpResponseRedirect("/topics")
