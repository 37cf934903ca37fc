"""The live server's companion fixture of tests/mcp/conftest.py (`live` is in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from ctx.oauth import dcr
from tests.mcp.conftest import no_broker  # noqa: F401 - fixture


@pytest.fixture(autouse=True)
def fresh_registration_window() -> Iterator[None]:
    """Every test registers from 127.0.0.1 against the live server; the per-IP limit (20 an
    hour, counted in the suite's Redis) is for clients, not for a test run: each test starts
    with the loopback address's count at zero."""
    client = dcr._redis(settings.REDIS_URL)
    for key in client.scan_iter("ctx:oauth:dcr:127.0.0.1:*"):
        client.delete(key)
    yield
