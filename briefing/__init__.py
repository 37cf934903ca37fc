"""Memory in use: the token-budgeted context for a system prompt and "what changed since".

Reads the core's blocks and versions and the conversations app's sessions (through its
selectors); writes nothing. Its operations are called by the HTTP API, MCP and the CLI.
"""
