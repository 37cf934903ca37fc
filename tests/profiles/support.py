"""What the profile tests share: a JSON client with PATCH and DELETE, and signals that are
processed at once (the on-commit task, run inline as without a broker)."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Api, Cast


class ProfileApi:
    """The cast member's client, with the verbs the profile endpoints use."""

    def __init__(self, api: Api) -> None:
        self.api = api

    def _headers(self, **extra: str) -> dict[str, str]:
        return {**({"X-Context-Key": self.api.key} if self.api.key else {}), **extra}

    def get(self, path: str, **params: Any) -> tuple[int, Any]:
        return self.api.get(path, **params)

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        return self.api.post(path, body)

    def send(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
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


def clients(cast: Cast) -> tuple[ProfileApi, ProfileApi, ProfileApi, ProfileApi]:
    """owner, reader, writer, outsider."""
    return (
        ProfileApi(cast.owner),
        ProfileApi(cast.reader),
        ProfileApi(cast.writer),
        ProfileApi(cast.outsider),
    )
