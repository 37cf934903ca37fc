"""Local execution for `ctx exec` and the stdio MCP bridge (issue 25, parts 3 and 5).

The program runs on the agent's machine, where the data lives, never on the server; only
what it prints comes back, and output too large for a context window is indexed on the
server and answered by snippets. Modules: `policy` (environment scrub, Claude Code deny
rules), `runtimes` (languages found on PATH), `runner` (the subprocess and its limits),
`shrink` (large output), `netguard` + `fetch` (fetch_and_index), `stats` (bytes per session),
`tools` (the local MCP tools the bridge answers itself). Standard library and the CLI's own
HTTP client only.
"""
