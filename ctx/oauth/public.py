"""The origin clients see and the canonical MCP resource URI derived from it.

Every place that names this server (authorization-server metadata, protected-resource metadata,
the audience check on /mcp, the 401 challenge) goes through here, so they cannot disagree:
an `https://host` vs `https://host/` mismatch is enough to make a fresh token fail (#299).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port, validate_host

from ctx import knobs

MCP_PATH = "/mcp"
PRM_PATH = "/.well-known/oauth-protected-resource"


def normalize_origin(url: str) -> str:
    """`scheme://host[:port]` in lower case, without path or trailing slash."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def configured_origin() -> str | None:
    raw = knobs.value("CTX_PUBLIC_URL")
    return normalize_origin(raw) if raw else None


def origin_from(scheme: str, host: str, headers: Mapping[str, str]) -> str:
    """The origin of an ASGI request, resolved the way Django resolves it for its views.

    CTX_PUBLIC_URL wins; otherwise X-Forwarded-Proto/-Host count only with CTX_TRUST_PROXY
    (the same rule as SECURE_PROXY_SSL_HEADER and USE_X_FORWARDED_HOST in settings).
    """
    fixed = configured_origin()
    if fixed:
        return fixed
    if knobs.value("CTX_TRUST_PROXY"):
        proto = headers.get("x-forwarded-proto")
        if proto is not None:
            scheme = "https" if proto.split(",", 1)[0].strip() == "https" else "http"
        host = headers.get("x-forwarded-host", host).strip() or host
    return f"{scheme.lower()}://{host.lower()}"


def request_origin(request: HttpRequest) -> str:
    """The origin of a Django request (the proxy settings already shaped scheme and host)."""
    return configured_origin() or f"{request.scheme}://{request.get_host()}".lower()


def origin_of_meta(meta: Mapping[str, Any], secure: bool) -> str:
    """The origin of a request known only by its META (what the toolkit hands oauthlib)."""
    fixed = configured_origin()
    if fixed:
        return fixed
    request = HttpRequest()
    request.META = dict(meta)
    return f"{'https' if secure else 'http'}://{request.get_host()}".lower()


def mcp_resource(origin: str) -> str:
    """The canonical MCP URI: PRM `resource`, the token audience, the URL users paste."""
    return origin + MCP_PATH


def resource_metadata_url(origin: str) -> str:
    return origin + PRM_PATH + MCP_PATH


def host_allowed(host: str) -> bool:
    """Django's ALLOWED_HOSTS rule, for requests that never reach a Django view (/mcp)."""
    domain, _port = split_domain_port(host)
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)
