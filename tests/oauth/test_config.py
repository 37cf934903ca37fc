"""The toolkit's settings derived from the CTX_* knobs (ctx.oauth.config)."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client, override_settings

from ctx.oauth.config import provider_settings


def _ctx(settings: Any, **values: Any) -> dict[str, Any]:
    return {**settings.CTX, "CTX_PUBLIC_URL": "", "CTX_OAUTH_CIMD": False, **values}


def test_it_sets_sensible_lifetimes_and_oauth21_gates(settings: Any) -> None:
    conf = provider_settings(_ctx(settings))
    assert conf["ACCESS_TOKEN_EXPIRE_SECONDS"] == 3600
    assert conf["REFRESH_TOKEN_EXPIRE_SECONDS"] == 30 * 86400
    assert conf["ROTATE_REFRESH_TOKEN"] and conf["REFRESH_TOKEN_REUSE_PROTECTION"]
    assert conf["PKCE_REQUIRED"] and conf["COMPLIANT_BCP_RFC9700_PKCE_METHOD"]
    assert conf["OIDC_ISS_ENDPOINT"] == ""  # derived per request: `make run` on any port


def test_it_takes_the_issuer_from_the_public_url(settings: Any) -> None:
    conf = provider_settings(_ctx(settings, CTX_PUBLIC_URL="https://CTX.example.com/"))
    assert conf["OIDC_ISS_ENDPOINT"] == "https://ctx.example.com"


def test_it_advertises_client_id_metadata_documents_when_switched_on(settings: Any) -> None:
    conf = provider_settings(_ctx(settings, CTX_OAUTH_CIMD=True))
    assert conf["CIMD_ENABLED"] and conf["CIMD_ALLOWED_HOSTS"] == ["claude.ai", "claude.com"]
    with override_settings(OAUTH2_PROVIDER=conf):  # the toolkit reloads on setting_changed
        meta = json.loads(Client().get("/.well-known/oauth-authorization-server").content)
    assert meta["client_id_metadata_document_supported"] is True
