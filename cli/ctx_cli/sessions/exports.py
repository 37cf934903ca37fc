"""Data exports (ChatGPT, claude.ai): a ZIP or a bare `conversations.json`, streamed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctx_cli.sessions.files import FileProblem, export_head, iter_json_array, open_export
from ctx_cli.sessions.model import Drift

# A key at any depth of the first conversation; the look-behind skips an escaped quote, so the
# same words inside message text (where quotes are escaped) do not count.
_MARKERS = {
    "chatgpt": re.compile(r'(?<!\\)"(mapping|current_node)"\s*:'),
    "claude-ai": re.compile(r'(?<!\\)"(chat_messages|sender)"\s*:'),
}


def export_kind(path: Path) -> str | None:
    """`chatgpt`, `claude-ai`, or None: whose export this is, from its first conversation."""
    if path.suffix.lower() not in (".zip", ".json"):
        return None
    head = export_head(path)
    if not head.lstrip().startswith("["):
        return None
    found = {name: m.start() for name, rx in _MARKERS.items() if (m := rx.search(head))}
    return min(found, key=lambda name: found[name]) if found else None


def conversations(path: Path, drift: Drift) -> Iterator[dict[str, Any]]:
    """Each conversation object of the export, decoded one at a time."""
    with open_export(path) as stream:
        try:
            for n, item in enumerate(iter_json_array(stream, drift)):
                if isinstance(item, dict):
                    yield item
                else:
                    drift.unreadable(f"conversation {n + 1}: ", "not a JSON object")
        except FileProblem as exc:
            raise FileProblem(f"{path}: {exc}") from exc


def refuse(path: Path, wanted: str) -> FileProblem:
    other = export_kind(path)
    found = f"it looks like a {other} export" if other else "no conversations were recognised"
    return FileProblem(f"{path} is not a {wanted} export ({found})")
