"""Writing sources through the API with the after-commit hooks run (extraction in-process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import Api


def store(api: Api, capture: Callable[..., Any], content: str, **fields: Any) -> dict[str, Any]:
    """Store a block; returns its stored row (extraction ran after the commit)."""
    body = {"category": "notes", "title": fields.pop("title", content[:40]), "content": content}
    with capture(execute=True):
        status, data = api.post("/api/store", {**body, **fields})
    assert status in (200, 201), data
    return data


def facts(api: Api, **params: Any) -> list[dict[str, Any]]:
    status, data = api.get("/api/facts", **params)
    assert status == 200, data
    return list(data["facts"])


def values(api: Api, **params: Any) -> dict[str, str]:
    return {f"{f['subject']}.{f['attribute']}": f["value"] for f in facts(api, **params)}
