"""Masking on read: block text above the caller's read ceiling never leaves the server.

Every key has a maximum sensitivity it reads in clear (`ApiKey.max_sensitivity`, carried as
`Principal.read_ceiling`; the default, `personal`, masks credentials). Above it the payloads
built for HTTP, MCP and the web UI (ctx/ops/payloads.py, ctx/ops/search.py, ctx/ops/history.py,
the apps' payloads) replace content, previews and snippets with `[redacted:<level>]`, the
metadata with `{}` and the content hash with the same marker (a hash of a short secret can be
guessed offline). Titles, tags, ids and the level itself stay: they are how a user finds the
block and learns which key reads it. Synthesis hands the LLM the same marker instead of the text.
"""

from __future__ import annotations

from typing import Any

from ctx.principal import Principal


def marker(level: str) -> str:
    """What stands in for text at `level`: `[redacted:credentials]`."""
    return f"[redacted:{level}]"


def masked(principal: Principal, level: str) -> bool:
    return not principal.reads_in_clear(level)


def text(principal: Principal, level: str, value: str) -> str:
    """`value`, or the marker when `level` is above the principal's read ceiling."""
    return marker(level) if masked(principal, level) else value


def metadata(principal: Principal, level: str, value: dict[str, Any]) -> dict[str, Any]:
    """The metadata, or nothing when masked: the detector reads metadata too, so a secret may
    sit in it."""
    return {} if masked(principal, level) else value


def hint(principal: Principal, level: str) -> str:
    """The sentence a masked block's payload carries: how to read it in clear."""
    return (
        f"The content is at sensitivity '{level}', above what this key reads in clear "
        f"('{principal.read_ceiling}'). To read it, use a key created with "
        f"max_sensitivity '{level}' (`ctx keys create --max-sensitivity {level}`, or "
        f"`manage.py keys create --max-sensitivity {level}` on the server)."
    )
