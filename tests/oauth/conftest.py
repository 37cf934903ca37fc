"""The live server's companion fixture of tests/mcp/conftest.py (`live` is in tests/conftest.py)."""

from __future__ import annotations

from tests.mcp.conftest import no_broker  # noqa: F401 - fixture
