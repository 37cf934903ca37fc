"""The upload limit (CTX_BLOB_MAX_BYTES): 413 past it, from the declared length before the
body is read; the ASGI body guard lets the upload path, and only it, past CTX_MAX_BODY_BYTES."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

import pytest

from blobs.models import Blob
from ctx.guards import BodyLimit
from tests.blobs.conftest import upload
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

LIMIT = 100


@pytest.fixture(autouse=True)
def small_limit(settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_BLOB_MAX_BYTES": LIMIT}


def test_it_takes_a_file_at_the_limit_and_refuses_one_byte_more(cast: Cast) -> None:
    status, _ = upload(cast.owner, b"a" * LIMIT)
    assert status == 201
    status, body = upload(cast.owner, b"b" * (LIMIT + 1))
    assert status == 413 and body["error"]["code"] == "payload_too_large"
    assert Blob.objects.count() == 1


def test_it_refuses_a_raw_body_over_the_limit(cast: Cast) -> None:
    resp = cast.owner.client.post(
        "/api/blob/store?name=big.bin",
        data=b"c" * (LIMIT + 1),
        content_type="application/octet-stream",
        headers=cast.owner._headers(),
    )
    assert resp.status_code == 413
    assert json.loads(resp.content)["error"]["code"] == "payload_too_large"


# --- the ASGI guard (ctx/guards.py) ------------------------------------------------------------


def _through_guard(path: str, length: int) -> tuple[int, bool]:
    """The status a request of `length` declared bytes gets, and whether the app was reached."""
    reached = False

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal reached
        reached = True
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = BodyLimit(app, 1000, {"/api/blob/store": 5000})
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "path": path, "headers": [(b"content-length", str(length).encode())]}
    asyncio.run(guard(scope, receive, send))
    return sent[0]["status"], reached


def test_it_lets_the_upload_path_past_the_global_body_limit() -> None:
    assert _through_guard("/api/blob/store", 4000) == (200, True)
    assert _through_guard("/api/blob/store", 5001) == (413, False)


def test_it_keeps_the_global_body_limit_for_every_other_path() -> None:
    assert _through_guard("/api/store", 4000) == (413, False)
    assert _through_guard("/api/blob/store/", 4000) == (413, False)
    assert _through_guard("/api/blob/search", 1000) == (200, True)


def test_it_allows_the_blob_limit_and_a_form_around_it_on_the_served_app(settings: Any) -> None:
    from blobs import config

    allowed = config.body_allowances()
    assert allowed == {"/api/blob/store": LIMIT + config.FORM_OVERHEAD}
