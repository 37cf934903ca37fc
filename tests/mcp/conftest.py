"""Tests against the live server (`live`, tests/conftest.py); tests/{mcp,oauth} share this."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    """This process's own writes (the cast's API calls) skip the embedding enqueue.

    It never loads ctx.celery, and Celery's default AMQP broker makes each write wait seconds
    to fail; the live server loads the project's Celery app and enqueues to Redis.
    """
    settings.CELERY_BROKER_URL = ""
    settings.CTX = {**settings.CTX, "CTX_GUARD_HINTS": False}  # as in the live server
