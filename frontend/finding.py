"""Search (the full query pipeline, with its explanation) and browse (the block list)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from ctx.errors import CtxError
from ctx.models import BlockType
from ctx.ops import blocks as block_ops
from ctx.ops import search as search_ops
from ctx.principal import Principal
from frontend.highlight import marked
from frontend.pages import page, signed_in

FILTERS = ("scope", "category", "type")


def _filters(request: HttpRequest) -> dict[str, str]:
    return {name: request.GET.get(name, "").strip() for name in FILTERS}


def _choices(principal: Principal, chosen: dict[str, str]) -> dict[str, Any]:
    return {
        "chosen": chosen,
        "scopes": sorted(principal.scope_names),
        "types": list(BlockType.values),
    }


def _query_input(q: str, chosen: dict[str, str]) -> search_ops.QueryInput:
    data: dict[str, Any] = {"query": q, "explain": True, "limit": 20}
    if chosen["scope"]:
        data["scope"] = chosen["scope"]
    if chosen["category"]:
        data["category"] = chosen["category"]
    if chosen["type"]:
        data["types"] = [chosen["type"]]
    return search_ops.QueryInput.parse(data)


def _hits(result: dict[str, Any], q: str) -> list[dict[str, Any]]:
    """Each source with its marked preview and its own line of the explanation."""
    per_hit = result.get("explain", {}).get("hits", {})
    return [
        {**s, "marked": marked(s["preview"], q), "explain": per_hit.get(s["id"])}
        for s in result["sources"]
    ]


def _explain(result: dict[str, Any]) -> list[tuple[str, str]]:
    """The pipeline's explanation but the per-hit part, each entry as readable JSON."""
    rest = {k: v for k, v in result.get("explain", {}).items() if k != "hits"}
    return [(k, json.dumps(v, indent=1, ensure_ascii=False, default=str)) for k, v in rest.items()]


@require_GET
@signed_in
def search(request: HttpRequest, principal: Principal) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    chosen = _filters(request)
    context: dict[str, Any] = {"q": q, **_choices(principal, chosen)}
    status = 200
    if q:
        try:
            result = search_ops.query(principal, _query_input(q, chosen))
        except CtxError as err:
            context["problem"], status = err.message, err.status
        else:
            context.update(
                result=result, hits=_hits(dict(result), q), explain=_explain(dict(result))
            )
    response = page(request, principal, "search.html", context)
    response.status_code = status
    return response


def _list_input(request: HttpRequest, chosen: dict[str, str]) -> block_ops.ListInput:
    data: dict[str, Any] = {"limit": 50}
    if chosen["scope"]:
        data["scope"] = [chosen["scope"]]
    if chosen["category"]:
        data["category"] = chosen["category"]
    if chosen["type"]:
        data["type"] = [chosen["type"]]
    if request.GET.get("cursor"):
        data["cursor"] = request.GET["cursor"]
    return block_ops.ListInput.parse(data)


@require_GET
@signed_in
def browse(request: HttpRequest, principal: Principal) -> HttpResponse:
    """The readable blocks, newest change first, a page at a time (the op's cursor)."""
    chosen = _filters(request)
    listing = block_ops.list_blocks(principal, _list_input(request, chosen))
    following = None
    if listing["next_cursor"]:
        kept = {k: v for k, v in chosen.items() if v}
        following = urlencode({**kept, "cursor": listing["next_cursor"]})
    context = {"page": listing, "following": following, **_choices(principal, chosen)}
    return page(request, principal, "browse.html", context)
