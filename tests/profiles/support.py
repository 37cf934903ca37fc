"""What the profile tests share: a JSON client with PATCH and DELETE whose writes run their
commit callbacks (the signals' processing, inline as without a broker) before answering."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from tests.conftest import Api, Cast

Commit = Callable[[], AbstractContextManager[Any]]


class ProfileApi:
    """The cast member's client, with the verbs the profile endpoints use."""

    def __init__(self, api: Api, commit: Commit = nullcontext) -> None:
        self.api = api
        self.commit = commit  # wraps each write: its on-commit work runs before we go on

    def _headers(self, **extra: str) -> dict[str, str]:
        return {**({"X-Context-Key": self.api.key} if self.api.key else {}), **extra}

    def get(self, path: str, **params: Any) -> tuple[int, Any]:
        return self.api.get(path, **params)

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        with self.commit():
            return self.api.post(path, body)

    def send(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        with self.commit():
            resp = self.api.client.generic(
                method,
                path,
                data=json.dumps(body) if body is not None else "",
                content_type="application/json",
                headers=self._headers(),
            )
        try:
            return resp.status_code, json.loads(resp.content)
        except ValueError:
            return resp.status_code, resp.content

    def text(self, path: str, accept: str = "text/plain", **params: Any) -> Any:
        return self.api.client.get(path, params, headers=self._headers(Accept=accept))

    def signal(self, note: str = "", **fields: Any) -> dict[str, Any]:
        status, body = self.post("/api/signals", {"type": "dislike", "note": note, **fields})
        assert status in (200, 201), body
        return body

    def create(self, slug: str, **fields: Any) -> dict[str, Any]:
        body = {"slug": slug, "name": slug.title(), **fields}
        status, data = self.post("/api/profiles", body)
        assert status == 201, data
        return data["profile"]


Apis = tuple[ProfileApi, ProfileApi, ProfileApi, ProfileApi]


def clients(cast: Cast, commit: Commit = nullcontext) -> Apis:
    """owner, reader, writer, outsider."""
    return (
        ProfileApi(cast.owner, commit),
        ProfileApi(cast.reader, commit),
        ProfileApi(cast.writer, commit),
        ProfileApi(cast.outsider, commit),
    )
