"""Server-rendered pages. Each view calls operations and renders their payloads."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ctx.errors import CtxError, error_response
from ctx.ops import blocks as block_ops
from ctx.principal import Principal
from dream import operations as dream_ops
from frontend import session
from frontend.forms import SignInForm
from frontend.pages import page, signed_in
from profiles import operations as profile_ops


@require_GET
def published_profile(request: HttpRequest, content_hash: str) -> HttpResponse:
    """A published preference profile, read-only, for anyone with the link (no key)."""
    try:
        found = profile_ops.published(None, profile_ops.HashInput.parse({"hash": content_hash}))
    except CtxError as err:
        return error_response(err)
    digest = found["hash"]
    context = {"hash": digest, "profile": found["payload"], "raw": f"/api/raw/{digest}"}
    return render(request, "frontend/published_profile.html", context)


def _next(request: HttpRequest) -> str:
    """Where to go after signing in: a path of this site, else home."""
    target = request.POST.get("next") or request.GET.get("next") or "/"
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    return target if safe and target.startswith("/") else "/"


@require_http_methods(["GET", "POST"])
def sign_in(request: HttpRequest) -> HttpResponse:
    form = SignInForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if session.sign_in(request, form.cleaned_data["api_key"]) is not None:
            return HttpResponseRedirect(_next(request))
        form.add_error("api_key", session.BAD_KEY)
    status = 401 if form.errors else 200
    context = {"form": form, "next": _next(request)}
    return render(request, "frontend/ui/sign_in.html", context, status=status)


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    session.sign_out(request)
    return HttpResponseRedirect("/sign-in")


# The dream queue's counts in words (the API's keys are for programs); back-off levels are
# left to the API, and the embedding backlog to the Blocks card (shown once).
DREAM_QUEUE_LABELS = {
    "pickable_now": "due now",
    "in_cooldown": "cooling down",
    "claimed": "being dreamed",
    "never_dreamed": "never dreamed",
    "failing": "failing",
    "cycles": "cycles run",
}


@require_GET
@signed_in
def home(request: HttpRequest, principal: Principal) -> HttpResponse:
    """Counts per scope and category, the embedding backlog, Dream Mode, open guard flags and
    the latest blocks."""
    scopes = block_ops.ScopesInput.parse({})
    context: dict[str, Any] = {
        "stats": block_ops.stats(principal, block_ops.StatsInput.parse({}))["stats"],
        "categories": block_ops.categories(principal, scopes)["categories"],
        "recent": block_ops.recent(principal, block_ops.RecentInput.parse({"limit": 10})),
        "dream": dream_ops.stats(principal, dream_ops.ScopesParam.parse({})),
        "flags": dream_ops.flags_stats(principal, dream_ops.ScopesParam.parse({}))["stats"],
    }
    queue = context["dream"]["queue"]
    context["dream_rows"] = [(label, queue[k]) for k, label in DREAM_QUEUE_LABELS.items()]
    return page(request, principal, "home.html", context)
