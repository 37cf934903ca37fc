"""Security headers of the web UI's pages. Block texts are untrusted (agents store anything),
so on top of auto-escaping and sanitized Markdown the browser is told to run no script but
the UI's own files: no inline script, no `eval`, no plug-ins, no framing, forms only to us.
(Django 5.2 has no CSP of its own; the policy is one constant, so a middleware suffices.)"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
UI_NAMESPACE = "ui"


class ContentSecurityPolicyMiddleware:
    """Adds the policy to every response of a view in the `ui` URL namespace."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if match is not None and UI_NAMESPACE in match.namespaces:
            response["Content-Security-Policy"] = POLICY
            response["Referrer-Policy"] = "same-origin"
            response["X-Content-Type-Options"] = "nosniff"
        return response
