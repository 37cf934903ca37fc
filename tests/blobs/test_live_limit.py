"""On the real server (uvicorn running ctx.asgi:app): a blob larger than the global body limit
(CTX_MAX_BODY_BYTES, 8 MiB) is taken on /api/blob/store, the same body on /api/store is 413."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

NINE_MIB = 9 * 1024 * 1024


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""


def test_it_takes_a_blob_over_the_global_body_limit_on_the_upload_path_only(
    live: LiveServer, cast: Cast
) -> None:
    data = b"\x00\x01" * (NINE_MIB // 2)
    headers = {"X-Context-Key": cast.owner.key or ""}
    with httpx.Client(base_url=live.url, headers=headers, timeout=60) as http:
        resp = http.post("/api/blob/store", files={"file": ("big.bin", data)})
        assert resp.status_code == 201, resp.text
        blob = resp.json()["blob"]
        assert blob["size"] == NINE_MIB and blob["content_type"] == "application/octet-stream"
        other = http.post("/api/store", content=data, headers={"Content-Type": "application/json"})
        assert other.status_code == 413 and other.json()["error"]["code"] == "payload_too_large"
        back = http.get(f"/api/blob/{blob['id']}", params={"download": "true"})
        assert back.status_code == 200 and back.content == data
        http.post("/api/blob/manage", json={"action": "delete", "id": blob["id"]})
