"""A cast for the management tiers: a server admin, acme's owner/admin/member, an outsider."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from ctx import services
from ctx.models import ApiKey, Tenant
from tests.conftest import Api


class Client(Api):
    """The JSON client plus DELETE and the raw bytes of the last answer."""

    last: bytes = b""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        send = getattr(self.client, method.lower())
        kwargs: dict[str, Any] = {"headers": self._headers()}
        if method != "GET":
            kwargs.update(data=json.dumps(body or {}), content_type="application/json")
        resp = send(path, **kwargs)
        self.last = resp.content
        try:
            return resp.status_code, json.loads(resp.content)
        except ValueError:
            return resp.status_code, resp.content

    def delete(self, path: str) -> tuple[int, Any]:
        return self.call("DELETE", path)


@dataclass
class Tiers:
    acme: Tenant
    globex: Tenant
    server_admin: Client  # is_admin, in tenant "ops"
    owner: Client  # acme owner
    admin: Client  # acme admin
    member: Client  # acme member
    outsider: Client  # globex owner: full powers, another tenant
    keys: dict[str, ApiKey]  # acme target keys: member2, admin2, owner2

    def by_name(self, name: str) -> Client:
        client: Client = getattr(self, name)
        return client


CALLERS = ("server_admin", "owner", "admin", "member", "outsider")


def make_tiers() -> Tiers:
    ops = services.tenant_create(name="ops")
    acme = services.tenant_create(name="acme", scopes=["acme:team"])
    globex = services.tenant_create(name="globex")

    def key(tenant: Tenant, name: str, role: str, **kw: Any) -> tuple[ApiKey, Client]:
        k, raw = services.key_create(
            tenant=tenant, name=name, home=f"{tenant.name}:main", role=role, **kw
        )
        return k, Client(raw)

    _, sa = key(ops, "root", "owner", is_admin=True)
    _, owner = key(acme, "owner", "owner")
    _, admin = key(acme, "admin", "admin")
    _, member = key(acme, "member", "member")
    _, outsider = key(globex, "boss", "owner")
    targets = {
        name: key(acme, f"{name}", name.rstrip("2"))[0] for name in ("member2", "admin2", "owner2")
    }
    return Tiers(acme, globex, sa, owner, admin, member, outsider, targets)


@pytest.fixture
def tiers(db: Any) -> Tiers:
    return make_tiers()
