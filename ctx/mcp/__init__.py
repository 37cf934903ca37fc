"""The MCP endpoint at /mcp: stateless Streamable HTTP served by the `mcp` SDK (docs/mcp.md)."""
