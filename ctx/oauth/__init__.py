"""OAuth 2.1 authorization server glue around django-oauth-toolkit (docs/mcp.md).

ctx adds what the toolkit leaves open: sign-in with a ctx API key on the consent page, a
strict audience for the MCP endpoint, gated dynamic client registration and root aliases.
"""
