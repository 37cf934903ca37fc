"""Server-rendered pages. Each view calls one operation and renders its payload."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ctx.errors import CtxError, error_response
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
