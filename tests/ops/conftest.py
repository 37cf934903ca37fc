"""The parity tests write through this process and read through the live server, as the MCP
tests do: the same broker rule applies."""

from __future__ import annotations

from tests.mcp.conftest import no_broker  # noqa: F401 - autouse fixture
