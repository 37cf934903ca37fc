"""The canonical cast (conventions §16), an HTTP client that speaks the API's JSON, and the
shared fixtures: the live server (`live`) and the browser (`browser`, `page`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from ctx import services
from ctx.models import ApiKey, Block, Tenant
from tests.support.browser import browser, page  # noqa: F401 - fixtures
from tests.support.live import LiveServer, shared
from tests.support.rls import runtime_role  # noqa: F401 - a fixture


class Api:
    """A JSON client for one API key; returns (status, parsed body)."""

    def __init__(self, key: str | None) -> None:
        self.key = key
        self.client = Client()

    def _headers(self) -> dict[str, str]:
        return {"X-Context-Key": self.key} if self.key else {}

    def post(self, path: str, body: Any = None, *, raw: str | None = None) -> tuple[int, Any]:
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        resp = self.client.post(
            path, data=data, content_type="application/json", headers=self._headers()
        )
        return resp.status_code, _json(resp)

    def get(self, path: str, **params: Any) -> tuple[int, Any]:
        resp = self.client.get(path, params, headers=self._headers())
        return resp.status_code, _json(resp)

    def store(self, **fields: Any) -> dict[str, Any]:
        body = {"category": "notes", "title": "t", "content": "c", **fields}
        status, data = self.post("/api/store", body)
        assert status in (200, 201), data
        return data


def _json(resp: Any) -> Any:
    try:
        return json.loads(resp.content)
    except ValueError:
        return resp.content


@dataclass
class Cast:
    acme: Tenant
    globex: Tenant
    owner: Api  # acme owner: writes acme:main and acme:team
    reader: Api  # acme teammate: reads acme:team and acme:main, writes nothing
    writer: Api  # acme teammate: writes acme:team only
    outsider: Api  # globex member: its own tenant only
    owner_key: ApiKey


@pytest.fixture
def cast(db: Any) -> Cast:
    return make_cast()


def make_cast() -> Cast:
    acme = services.tenant_create(name="acme", scopes=["acme:team"])
    globex = services.tenant_create(name="globex")
    owner_key, owner = services.key_create(
        tenant=acme,
        name="owner",
        home="acme:main",
        write=["acme:main", "acme:team"],
        role=ApiKey.Role.OWNER,
    )
    _, reader = services.key_create(
        tenant=acme, name="reader", home="acme:team", read=["acme:main"], write=[]
    )
    _, writer = services.key_create(tenant=acme, name="writer", home="acme:team")
    _, outsider = services.key_create(tenant=globex, name="outsider", home="globex:main")
    return Cast(acme, globex, Api(owner), Api(reader), Api(writer), Api(outsider), owner_key)


def block_count() -> int:
    return Block.objects.count()


def snapshot() -> list[tuple[Any, ...]]:
    """Every block's user-visible state, to prove a failed request changed nothing."""
    return list(
        Block.objects.order_by("id").values_list(
            "id", "scope_id", "category", "title", "content", "tags", "archived", "type"
        )
    )


@pytest.fixture(autouse=True)
def fresh_settings_registry() -> Any:
    """Overrides one test cached must not reach the next: its rows were rolled back."""
    yield
    from ctx.overrides import resolver

    resolver.invalidate()


@pytest.fixture(scope="session")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """The session's uvicorn (tests/support/live.py): runtime role, pool, collected statics."""
    yield from shared(tmp_path_factory)


@pytest.fixture(scope="session", autouse=True)
def uncollected_static_files() -> Iterator[None]:
    """In this process, static files as in development: plain names, served from the apps.

    The product's manifest storage needs `collectstatic` first, and a template naming a file
    that is not in the manifest raises; collecting (~10 s: gzip and brotli) for every run that
    renders a template would slow the suite. The live server (`live`) collects once per session
    and serves the real hashed, compressed files; the browser tests go through it."""
    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    with override_settings(
        STORAGES={**settings.STORAGES, "staticfiles": plain},
        WHITENOISE_USE_FINDERS=True,
        WHITENOISE_AUTOREFRESH=True,
    ):
        yield
