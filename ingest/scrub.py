"""Credentials out of everything an import stores, before anything is written (the job's
payload included): message text, tool-call summaries, session titles and metadata values.

Each credentials-level span the detector finds (`ctx.sensitivity.redact`) becomes a typed
placeholder (`[redacted:aws-key]`); the message keeps the detector names in `redacted`, never
the value. Personal data (e-mail addresses, phone numbers) is kept; the window blocks made from
it are stored at the level the detector gives them (docs/security.md).
"""

from __future__ import annotations

from typing import Any

from ctx.sensitivity import redact


def text(value: str) -> tuple[str, set[str]]:
    # PostgreSQL text cannot hold NUL: binary tool output would fail the whole batch.
    clean, found = redact(value.replace("\x00", "\ufffd"))
    return clean, set(found)


def _no_nul(value: Any) -> Any:
    return value.replace("\x00", "\ufffd") if isinstance(value, str) else value


def message(raw: dict[str, Any]) -> dict[str, Any]:
    """A message dict with its text and tool calls scrubbed and `redacted` set."""
    raw = {k: _no_nul(v) for k, v in raw.items()}
    found: set[str] = set()
    clean, names = text(raw.get("text") or "")
    found |= names
    calls = []
    for call in raw.get("tool_calls") or []:
        call_clean, names = text(call)
        calls.append(call_clean)
        found |= names
    return {**raw, "text": clean, "tool_calls": calls, "redacted": sorted(found)}


def session(raw: dict[str, Any]) -> dict[str, Any]:
    """A session dict with its title, metadata values and messages scrubbed."""
    raw = {k: _no_nul(v) for k, v in raw.items()}
    title, _ = text(raw.get("title") or "")
    meta = {k: text(v)[0] if isinstance(v, str) else v for k, v in (raw.get("meta") or {}).items()}
    messages = [message(m) for m in raw.get("messages") or []]
    return {**raw, "title": title, "meta": meta, "messages": messages}
