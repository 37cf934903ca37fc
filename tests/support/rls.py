"""The runtime role for a test: the rest of the test runs as `ctx_app`, under row-level
security, with the tenant context applied as the server applies it (rls/context.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from rls import context as rls
from rls.role import ROLE


@pytest.fixture
def runtime_role() -> Iterator[None]:
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {ROLE}")
    rls.arm(connection)
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
        rls.arm(connection)
