"""Imports run in the request (no broker), as in tests/api's session tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
