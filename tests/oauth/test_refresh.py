"""Refresh tokens rotate; replaying a used one revokes the whole family."""

from __future__ import annotations

import pytest

from ctx import services
from ctx.models import ApiKey, Tenant
from tests.conftest import Cast
from tests.mcp.live import LiveServer
from tests.oauth.flow import sign_in, token
from tests.oauth.test_audience import _mcp

pytestmark = pytest.mark.django_db(transaction=True)


def _refresh(live: LiveServer, client_id: str, refresh_token: str) -> tuple[int, dict[str, str]]:
    resp = token(live, grant_type="refresh_token", refresh_token=refresh_token, client_id=client_id)
    return resp.status_code, resp.json()


def test_it_rotates_the_refresh_token(live: LiveServer, cast: Cast) -> None:
    first = sign_in(live, cast.owner.key or "")
    status, second = _refresh(live, first["client_id"], first["refresh_token"])
    assert status == 200 and second["refresh_token"] != first["refresh_token"]
    assert second["expires_in"] == 3600
    assert _mcp(live, second["access_token"]).status_code == 200


def test_it_revokes_the_family_when_a_refresh_token_is_replayed(
    live: LiveServer, cast: Cast
) -> None:
    first = sign_in(live, cast.owner.key or "")
    _, second = _refresh(live, first["client_id"], first["refresh_token"])
    status, body = _refresh(live, first["client_id"], first["refresh_token"])  # stolen and replayed
    assert status == 400 and body["error"] == "invalid_grant"
    status, _ = _refresh(live, first["client_id"], second["refresh_token"])
    assert status == 400  # the legitimate holder's newer refresh token died with the family
    assert _mcp(live, second["access_token"]).status_code == 401


def _second_key(cast: Cast) -> tuple[ApiKey, str]:
    return services.key_create(tenant=cast.acme, name="connector", home="acme:main")


def test_it_refuses_to_refresh_for_a_revoked_key(live: LiveServer, cast: Cast) -> None:
    key, raw = _second_key(cast)
    first = sign_in(live, raw)
    services.key_revoke(tenant=cast.acme, prefix=key.prefix)
    status, body = _refresh(live, first["client_id"], first["refresh_token"])
    assert status == 400 and body["error"] == "invalid_grant"


def test_it_refuses_to_refresh_while_the_tenant_is_suspended(live: LiveServer, cast: Cast) -> None:
    _, raw = _second_key(cast)
    first = sign_in(live, raw)
    Tenant.objects.filter(pk=cast.acme.pk).update(status=Tenant.Status.SUSPENDED)
    status, body = _refresh(live, first["client_id"], first["refresh_token"])
    assert status == 400 and body["error"] == "invalid_grant"
    Tenant.objects.filter(pk=cast.acme.pk).update(status=Tenant.Status.ACTIVE)
    status, _ = _refresh(live, first["client_id"], first["refresh_token"])
    assert status == 200  # resumed: the family was refused, not revoked
