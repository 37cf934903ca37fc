"""The origin every OAuth document and the audience check agree on (ctx.oauth.public)."""

from __future__ import annotations

from typing import Any

from ctx.oauth import public


def _ctx(settings: Any, **values: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_PUBLIC_URL": "", "CTX_TRUST_PROXY": False, **values}


def test_it_uses_the_request_when_nothing_is_configured(settings: Any) -> None:
    _ctx(settings)
    headers = {"x-forwarded-proto": "https", "x-forwarded-host": "evil.example"}
    assert public.origin_from("http", "127.0.0.1:8000", headers) == "http://127.0.0.1:8000"


def test_it_trusts_forwarded_headers_only_when_told(settings: Any) -> None:
    _ctx(settings, CTX_TRUST_PROXY=True)
    headers = {"x-forwarded-proto": "https, http", "x-forwarded-host": "CTX.example.com"}
    assert public.origin_from("http", "10.0.0.2:8000", headers) == "https://ctx.example.com"


def test_it_prefers_the_configured_public_url(settings: Any) -> None:
    _ctx(settings, CTX_PUBLIC_URL="HTTPS://Ctx.Example.com/", CTX_TRUST_PROXY=True)
    assert public.origin_from("http", "x:1", {"x-forwarded-host": "y"}) == "https://ctx.example.com"
    assert public.mcp_resource(public.configured_origin() or "") == "https://ctx.example.com/mcp"
    assert public.resource_metadata_url("https://h") == (
        "https://h/.well-known/oauth-protected-resource/mcp"
    )
