"""Dream and guard review: links waiting for a decision (confirm pins, delete removes) and the
guard's open near-duplicate flags (keep both, archive the newer), each through its operation."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_GET, require_POST

from ctx.principal import Principal
from dream import operations as dream_ops
from frontend.pages import page, signed_in


@require_GET
@signed_in
def review(request: HttpRequest, principal: Principal) -> HttpResponse:
    context = {
        "links": dream_ops.review(principal, dream_ops.ReviewInput.parse({}))["links"],
        "flags": dream_ops.flags_list(principal, dream_ops.FlagsInput.parse({}))["flags"],
        "mode": dream_ops.mode_get(principal, dream_ops.NoInput.parse({}))["mode"],
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
