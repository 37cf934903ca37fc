"""System checks for the public URL the OAuth server and /mcp announce (conventions §12)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core import checks
from django.core.checks import Error, register

from ctx import knobs

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@register()
def check_public_url(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    """ctx_oauth.E001: CTX_PUBLIC_URL is an origin; ctx_oauth.W001: it should be https."""
    raw = str(knobs.configured("CTX_PUBLIC_URL") or "")
    if not raw:
        return []
    parts = urlsplit(raw.strip())
    bad = parts.scheme not in {"http", "https"} or not parts.hostname
    bad = bad or parts.path not in {"", "/"} or bool(parts.query or parts.fragment)
    if bad:
        return [
            Error(
                f"CTX_PUBLIC_URL={raw!r} is not an origin like https://ctx.example.com.",
                hint="No path, query or fragment: /mcp and the OAuth endpoints hang off it.",
                id="ctx_oauth.E001",
            )
        ]
    if parts.scheme == "http" and parts.hostname not in LOOPBACK:
        return [
            checks.Warning(
                f"CTX_PUBLIC_URL={raw!r} is plain http.",
                hint="OAuth clients (claude.ai, Claude Code) require https except on loopback.",
                id="ctx_oauth.W001",
            )
        ]
    return []
