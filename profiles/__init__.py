"""Preference profiles: signals about answers → interpretations → a versioned instruction prompt.

`profiles.core` is the pure part (no Django, no I/O beyond the folder contract): signal
validation, the deterministic and LLM interpreters, synthesis and rendering, the folder
contract and content-addressed publishing. The Django app, API, MCP tools and CLI wrap it.
"""
