"""A block's page (rendered Markdown, metadata, links, supersession), its edit form, and
archive/restore. Every read and write goes through the block operations, which answer a
foreign id exactly as a missing one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ctx.errors import CtxError
from ctx.ops import blocks as block_ops
from ctx.ops import history as history_ops
from ctx.principal import Principal
from dream import operations as dream_ops
from frontend import markdown
from frontend.forms import EditForm
from frontend.pages import page, signed_in, writable_names


def _get(principal: Principal, block_id: str) -> dict[str, Any]:
    found = block_ops.get(principal, block_ops.GetInput.parse({"id": block_id}))
    return dict(found["block"])


def _links(principal: Principal, block_id: str) -> list[dict[str, Any]]:
    """The block's direct links (the ego graph at one hop, up to 100 of them, strongest raw
    confidence first), each with the other end's title."""
    data = {"id": block_id, "per_node_cap": 100}
    graph = dream_ops.ego_graph(principal, dream_ops.EgoInput.parse(data))
    nodes = graph["nodes"]
    rows = []
    for source, target, link_class, confidence, pinned, origin, _ in graph["edges"]:
        outgoing = nodes[source]["id"] == block_id
        other = nodes[target] if outgoing else nodes[source]
        rows.append(
            {
                "link_class": link_class,
                "confidence": confidence,
                "pinned": pinned,
                "origin": origin,
                "outgoing": outgoing,
                "other": other,
            }
        )
    return sorted(rows, key=lambda r: (r["link_class"], -r["confidence"]))


@require_GET
@signed_in
def block(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    found = _get(principal, block_id)
    chain = block_ops.chain(principal, block_ops.GetInput.parse({"id": found["id"]}))
    context = {
        "doc": found,
        "html": markdown.render(found["content"]),
        "links": _links(principal, found["id"]),
        "chain": chain,
        "dates": block_ops.dates(principal, block_ops.GetInput.parse({"id": found["id"]}))["dates"],
        "history": history_ops.history(
            principal, history_ops.HistoryInput.parse({"id": found["id"]})
        ),
        "writable": found["scope"] in writable_names(principal),
    }
    return page(request, principal, "block.html", context)


@require_http_methods(["GET", "POST"])
@signed_in
def edit(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    found = _get(principal, block_id)
    form = EditForm.of(found) if request.method == "GET" else EditForm(request.POST)
    status = 200
    if request.method == "POST" and form.is_valid():
        changes = form.changes(found)
        if not changes:
            return HttpResponseRedirect(f"/blocks/{found['id']}")
        try:
            data = {"id": found["id"], "fields": changes}
            block_ops.update(principal, block_ops.UpdateInput.parse(data))
            return HttpResponseRedirect(f"/blocks/{found['id']}")
        except CtxError as err:
            if err.status not in (400, 413):
                raise
            form.add_error(None, err.message)
    if form.errors:
        status = 400
    response = page(request, principal, "edit.html", {"doc": found, "form": form})
    response.status_code = status
    return response


@require_POST
@signed_in
def archive(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    """Archived: the page says so and offers the way back (the block page itself is gone)."""
    found = _get(principal, block_id)
    block_ops.delete(principal, block_ops.GetInput.parse({"id": found["id"]}))
    return page(request, principal, "archived.html", {"doc": found})


@require_POST
@signed_in
def restore_version(
    request: HttpRequest, principal: Principal, block_id: str, version: int
) -> HttpResponse:
    """An earlier version's content becomes the newest version (the one it replaces is kept)."""
    data = {"id": block_id, "version": version}
    restored = history_ops.restore_version(principal, history_ops.VersionInput.parse(data))
    return HttpResponseRedirect(f"/blocks/{restored['block']['id']}#history")


@require_POST
@signed_in
def restore(request: HttpRequest, principal: Principal, block_id: str) -> HttpResponse:
    restored = block_ops.restore(principal, block_ops.GetInput.parse({"id": block_id}))
    return HttpResponseRedirect(f"/blocks/{restored['block']['id']}")
