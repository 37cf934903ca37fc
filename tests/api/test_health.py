from __future__ import annotations

import socket
from typing import Any

import pytest

from ctx.ops import health as health_ops
from tests.conftest import Api
from tests.fake_http import FakeServer, Reply

pytestmark = pytest.mark.django_db


def closed_port_url(scheme: str) -> str:
    """A URL nothing listens on (a port bound then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"{scheme}://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def fresh_probes() -> None:
    health_ops._remembered.clear()  # remote probes are remembered for seconds


def test_it_reports_each_part_anonymously_without_internals() -> None:
    status, body = Api(None).get("/health")
    assert status == 200
    assert body == {
        "status": "ok",
        "checks": {"database": "ok", "redis": "ok", "embedder": "ok", "llm": "not_configured"},
        "degraded": [],
    }


def test_redis_down_is_degraded_not_unavailable(settings: Any) -> None:
    settings.REDIS_URL = closed_port_url("redis")
    status, body = Api(None).get("/health")
    assert status == 200 and body["status"] == "degraded"
    assert body["checks"]["redis"] == "down" and body["degraded"] == ["redis"]
    assert "127.0.0.1" not in str(body)  # states, never addresses


def test_an_llm_that_does_not_answer_is_degraded_and_one_that_answers_is_ok(
    settings: Any,
) -> None:
    settings.CTX = {**settings.CTX, "CTX_LLM_PROVIDER": "openai", "CTX_LLM_MODEL": "m"}
    settings.CTX["CTX_LLM_BASE_URL"] = closed_port_url("http")
    status, body = Api(None).get("/health")
    assert status == 200 and body["checks"]["llm"] == "down" and body["degraded"] == ["llm"]
    with FakeServer(lambda seen, n: Reply(status=404)) as server:  # any answer: it is up
        settings.CTX = {**settings.CTX, "CTX_LLM_BASE_URL": server.url}
        health_ops._remembered.clear()
        assert Api(None).get("/health")[1]["checks"]["llm"] == "ok"


def test_a_remote_embedder_that_does_not_answer_is_degraded(settings: Any) -> None:
    settings.CTX = {
        **settings.CTX,
        "CTX_EMBED_PROVIDER": "ollama",
        "CTX_EMBED_BASE_URL": closed_port_url("http"),
    }
    body = Api(None).get("/health")[1]
    assert body["status"] == "degraded" and body["checks"]["embedder"] == "down"


def test_it_answers_unknown_paths_with_the_envelope() -> None:
    status, body = Api(None).get("/api/nope")
    assert status == 404 and body["error"]["code"] == "not_found" and body["success"] is False


def test_it_answers_wrong_methods_with_the_envelope() -> None:
    status, body = Api("ctx_x").get("/api/store")
    assert status in (401, 405) and body["success"] is False
