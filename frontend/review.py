"""Dream and guard review: links waiting for a decision (confirm pins, delete removes), the
guard's open near-duplicate flags beside a diff of the two texts (keep both, archive the
flagged one, merge it into its twin), and the Dream Mode switch for server admins; each
through its operation."""

from __future__ import annotations

import difflib
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from ctx.errors import CtxError
from ctx.ops import blocks as block_ops
from ctx.principal import Principal
from dream import operations as dream_ops
from frontend.pages import page, signed_in

MODES = ("on", "throttled", "off")


def _text(principal: Principal, block_id: str) -> str:
    try:
        found = block_ops.get(principal, block_ops.GetInput.parse({"id": block_id}))
    except CtxError:  # archived meanwhile or out of reach: nothing to compare
        return ""
    return str(found["block"]["content"])


def diff_table(old: str, new: str, old_title: str, new_title: str) -> SafeString:
    """The two texts side by side, changed lines marked (difflib escapes every line itself,
    and its table has no scripts or inline styles for the CSP to refuse)."""
    table = difflib.HtmlDiff(wrapcolumn=48).make_table(
        old.splitlines(), new.splitlines(), old_title, new_title, context=True, numlines=2
    )
    return mark_safe(table)  # noqa: S308  # difflib HTML-escapes the texts and titles


def _with_diffs(principal: Principal, flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for f in flags:
        twin, block = _text(principal, f["twin"]["id"]), _text(principal, f["block"]["id"])
        rows.append({**f, "diff": diff_table(twin, block, f["twin"]["title"], f["block"]["title"])})
    return rows


@require_GET
@signed_in
def review(request: HttpRequest, principal: Principal) -> HttpResponse:
    flags = dream_ops.flags_list(principal, dream_ops.FlagsInput.parse({}))["flags"]
    context = {
        "links": dream_ops.review(principal, dream_ops.ReviewInput.parse({}))["links"],
        "flags": _with_diffs(principal, flags),
        "mode": dream_ops.mode_get(principal, dream_ops.NoInput.parse({}))["mode"],
        "modes": MODES,
        "may_switch": principal.is_admin,
    }
    return page(request, principal, "review.html", context)


@require_POST
@signed_in
def link_resolve(request: HttpRequest, principal: Principal, link_id: str) -> HttpResponse:
    data = {"link": link_id, "action": request.POST.get("action", "")}
    dream_ops.link_resolve(principal, dream_ops.LinkResolveInput.parse(data))
    return HttpResponseRedirect("/review")


@require_POST
@signed_in
def flag_resolve(request: HttpRequest, principal: Principal, flag_id: str) -> HttpResponse:
    data = {"id": flag_id, "action": request.POST.get("action", "")}
    dream_ops.flag_resolve(principal, dream_ops.FlagResolveInput.parse(data))
    return HttpResponseRedirect("/review")


@require_POST
@signed_in
def mode(request: HttpRequest, principal: Principal) -> HttpResponse:
    """One switch for every worker: only a server admin's key may move it (the op says so)."""
    dream_ops.mode_set(principal, dream_ops.ModeInput.parse({"mode": request.POST.get("mode", "")}))
    return HttpResponseRedirect("/review")
