"""System checks on CTX_PUBLIC_URL (ctx_oauth.E001, ctx_oauth.W001)."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.oauth.checks import check_public_url


def _ids(settings: Any, url: str) -> list[str]:
    settings.CTX = {**settings.CTX, "CTX_PUBLIC_URL": url}
    return [m.id or "" for m in check_public_url(None)]


@pytest.mark.parametrize("url", ["https://ctx.example.com", "https://ctx.example.com/", ""])
def test_it_accepts_an_https_origin_or_nothing(settings: Any, url: str) -> None:
    assert _ids(settings, url) == []


@pytest.mark.parametrize(
    "url", ["ctx.example.com", "https://ctx.example.com/ctx", "https://h/?a=1", "ftp://h"]
)
def test_it_refuses_anything_but_an_origin(settings: Any, url: str) -> None:
    assert _ids(settings, url) == ["ctx_oauth.E001"]


def test_it_warns_about_plain_http_off_loopback(settings: Any) -> None:
    assert _ids(settings, "http://ctx.example.com") == ["ctx_oauth.W001"]
    assert _ids(settings, "http://127.0.0.1:8000") == []
