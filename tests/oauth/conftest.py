"""Fixtures for tests against the live server (tests/mcp/live.py); tests/{mcp,oauth} share it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.mcp.live import LiveServer, shared


@pytest.fixture(scope="session")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    yield from shared(tmp_path_factory)


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    """This process's own writes (the cast's API calls) skip the embedding enqueue.

    It never loads ctx.celery, and Celery's default AMQP broker makes each write wait seconds
    to fail; the live server loads the project's Celery app and enqueues to Redis.
    """
    settings.CELERY_BROKER_URL = ""
    settings.CTX = {**settings.CTX, "CTX_GUARD_HINTS": False}  # as in the live server
