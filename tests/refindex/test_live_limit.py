"""On the real server (uvicorn running ctx.asgi:app): a document above the global body limit
(CTX_MAX_BODY_BYTES, 8 MiB) but within CTX_INDEX_MAX_BYTES (10 MB) is indexed on /api/index;
the same body elsewhere is 413, and a document over 10 MB is 413 on /api/index too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

LINE = "Run the migrations before the workers; the canary waits for the kittiwake check.\n"


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""


def test_a_nine_mib_document_is_indexed_and_an_eleven_mb_one_is_not(
    live: LiveServer, cast: Cast
) -> None:
    nine_mib = "# Runbook\n\n" + LINE * (9 * 1024 * 1024 // len(LINE))
    headers = {"X-Context-Key": cast.owner.key or ""}
    with httpx.Client(base_url=live.url, headers=headers, timeout=300) as http:
        body = {"content": nine_mib, "source": "runbook", "type": "text"}
        resp = http.post("/api/index", json=body)
        assert resp.status_code in (200, 201), resp.text[:300]
        other = http.post("/api/store", json={"title": "t", "content": nine_mib})
        assert other.status_code == 413 and other.json()["error"]["code"] == "payload_too_large"
        eleven = "x" * (11 * 1000 * 1000)
        over = http.post("/api/index", json={"content": eleven, "source": "big", "type": "text"})
        assert over.status_code == 413 and over.json()["error"]["code"] == "payload_too_large"
