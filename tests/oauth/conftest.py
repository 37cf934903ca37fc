"""The live-server fixtures of tests/mcp/conftest.py, shared (one server per run)."""

from __future__ import annotations

from tests.mcp.conftest import live, no_broker  # noqa: F401 - fixtures
