"""Search (the full query pipeline, with its explanation) and browse (the block list)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from ctx.errors import CtxError, ValidationFailed
from ctx.models import BlockType
from ctx.ops import blocks as block_ops
from ctx.ops import search as search_ops
from ctx.principal import Principal
from frontend.highlight import marked
from frontend.pages import page, signed_in

FILTERS = ("scope", "category", "type", "tags")
# Search only: a period (said or dated within), memory as it was, "last week" seen from then.
TIME_TRAVEL = ("since", "until", "as_of", "now")
LIST_PARAMS = (*FILTERS, "archived", "order")
SUGGESTIONS = 8


def _filters(request: HttpRequest, names: tuple[str, ...] = FILTERS) -> dict[str, str]:
    return {name: request.GET.get(name, "").strip() for name in names}


def _tags(chosen: dict[str, str]) -> list[str]:
    return [t.strip() for t in chosen.get("tags", "").split(",") if t.strip()]


def _choices(principal: Principal, chosen: dict[str, str]) -> dict[str, Any]:
    return {
        "chosen": chosen,
        "scopes": sorted(principal.scope_names),
        "types": list(BlockType.values),
    }


def _search_filters(chosen: dict[str, str]) -> dict[str, Any]:
    """The form's filters as a search input's fields (the query and as-you-type alike)."""
    data: dict[str, Any] = {k: chosen[k] for k in ("scope", "category") if chosen[k]}
    if chosen["type"]:
        data["types"] = [chosen["type"]]
    if _tags(chosen):
        data["tags"] = _tags(chosen)
    return data


def _query_input(q: str, chosen: dict[str, str]) -> search_ops.QueryInput:
    data: dict[str, Any] = {"query": q, "explain": True, "limit": 20, **_search_filters(chosen)}
    data.update({name: chosen[name] for name in TIME_TRAVEL if chosen.get(name)})
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
    chosen = _filters(request, FILTERS + TIME_TRAVEL)
    context: dict[str, Any] = {"q": q, "time_travel": True, **_choices(principal, chosen)}
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


@require_GET
@signed_in
def suggest(request: HttpRequest, principal: Principal) -> HttpResponse:
    """As-you-type results for the search box: the lexical arms only (no embedding, no
    stages), as JSON for ui-search.js; a bad query is an empty list, never an error page."""
    q = request.GET.get("q", "").strip()
    rows: list[dict[str, str]] = []
    if q:
        try:
            found = search_ops.search(principal, _suggest_input(q, _filters(request)))["results"]
        except CtxError:
            found = []
        rows = [{"id": r["id"], "title": r["title"], "scope": r["scope"]} for r in found]
    return JsonResponse({"query": q, "results": rows})


def _suggest_input(q: str, chosen: dict[str, str]) -> search_ops.SearchInput:
    data = {"query": q, "limit": SUGGESTIONS, **_search_filters(chosen)}
    return search_ops.SearchInput.parse(data)


def _list_input(request: HttpRequest, chosen: dict[str, str]) -> block_ops.ListInput:
    data: dict[str, Any] = {"limit": 50}
    if chosen["scope"]:
        data["scope"] = [chosen["scope"]]
    if chosen["category"]:
        data["category"] = chosen["category"]
    if chosen["type"]:
        data["type"] = [chosen["type"]]
    if _tags(chosen):
        data["tags"] = _tags(chosen)
    if chosen.get("archived"):
        data["archived"] = True
    if chosen.get("order"):
        data["order"] = chosen["order"]
    if request.GET.get("cursor"):
        data["cursor"] = request.GET["cursor"]
    return block_ops.ListInput.parse(data)


@require_GET
@signed_in
def browse(request: HttpRequest, principal: Principal) -> HttpResponse:
    """The readable blocks (or the archived ones), newest change first, a page at a time (the
    op's cursor), each with a box for the bulk actions."""
    chosen = _filters(request, LIST_PARAMS)
    listing = block_ops.list_blocks(principal, _list_input(request, chosen))
    kept = {k: v for k, v in chosen.items() if v}
    following = None
    if listing["next_cursor"]:
        following = urlencode({**kept, "cursor": listing["next_cursor"]})
    context = {
        "page": listing,
        "following": following,
        "here": urlencode(kept),
        "sorted": _sort_links(kept),
        "done": _done(request.GET.get("done", "")),
        **_choices(principal, chosen),
    }
    return page(request, principal, "browse.html", context)


def _sort_links(kept: dict[str, str]) -> dict[str, str]:
    """The query string of each column header: title A to Z, changed newest or oldest first
    (a second click on the changed column turns its order)."""
    base = {k: v for k, v in kept.items() if k != "order"}
    turned = "oldest" if kept.get("order", "changed") == "changed" else "changed"
    return {
        "title": urlencode({**base, "order": "title"}),
        "changed": urlencode({**base, "order": turned}),
    }


BULK = ("archive", "restore", "category")
BULK_DONE = {"archive": "archived", "restore": "restored", "category": "moved"}


@require_POST
@signed_in
def bulk(request: HttpRequest, principal: Principal) -> HttpResponse:
    """Archive, restore or move to a category the ticked blocks of a page, one operation per
    block (each checks the key may write it); then back to the same list, saying how many."""
    action = request.POST.get("action", "")
    ids = request.POST.getlist("id")[: block_ops.PAGE_SIZE]
    if action not in BULK:
        raise ValidationFailed(f"'action' must be one of {', '.join(BULK)}.")
    category = request.POST.get("category", "").strip()
    done = sum(_one(principal, action, block_id, category) for block_id in ids)
    # Back to the same list: only its own filters are carried over from the form.
    back = {k: v for k, v in parse_qsl(request.POST.get("back", "")) if k in LIST_PARAMS}
    back["done"] = f"{done}/{len(ids)}/{action}"
    return HttpResponseRedirect(f"/blocks?{urlencode(back)}")


def _done(note: str) -> str:
    """The bulk action's report from its redirect, in words; anything else in `done` (a
    link someone crafted) shows nothing."""
    found = re.fullmatch(r"(\d{1,3})/(\d{1,3})/(" + "|".join(BULK) + ")", note)
    if found is None:
        return ""
    done, asked, action = found.groups()
    return f"{done} of {asked} chosen block{'s' if asked != '1' else ''} {BULK_DONE[action]}"


def _one(principal: Principal, action: str, block_id: str, category: str) -> bool:
    """One block of a bulk action; False when it was not done (gone, not writable, refused)."""
    try:
        if action == "archive":
            block_ops.delete(principal, block_ops.GetInput.parse({"id": block_id}))
        elif action == "restore":
            block_ops.restore(principal, block_ops.GetInput.parse({"id": block_id}))
        else:
            data = {"id": block_id, "fields": {"category": category}}
            block_ops.update(principal, block_ops.UpdateInput.parse(data))
    except CtxError as err:
        if action == "category" and err.status == 400:
            raise  # a bad category is the same for every block: say it once
        return False
    return True
