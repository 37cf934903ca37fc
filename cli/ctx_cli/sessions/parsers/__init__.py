"""The parsers by tool name. Each module has `TOOL`, `detect(path)`, `locate(home, platform,
env)` and `read(path, cursor)`; `read_as()` refuses a file that is another tool's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from ctx_cli.sessions.model import Cursor, ReadResult
from ctx_cli.sessions.parsers import (
    chatgpt,
    claude_ai,
    claude_code,
    codex,
    copilot,
    cursor,
    gemini,
)

PARSERS: dict[str, ModuleType] = {
    module.TOOL: module
    for module in (claude_code, codex, gemini, cursor, copilot, chatgpt, claude_ai)
}


def get(tool: str) -> ModuleType:
    try:
        return PARSERS[tool]
    except KeyError:
        known = ", ".join(sorted(PARSERS))
        raise KeyError(f"unknown tool {tool!r} (known: {known})") from None


def identify(path: Path) -> list[str]:
    """The tools whose format `path` has (usually one; none for an unknown file)."""
    found = []
    for name, module in PARSERS.items():
        try:
            if module.detect(path):
                found.append(name)
        except (OSError, ValueError):
            continue
    return found


def read_as(tool: str, path: Path, cursor: Cursor | None = None) -> ReadResult:
    """Read `path` as `tool`'s log, or refuse it with a message when it is not one."""
    module = get(tool)
    if not path.exists():
        return ReadResult([], cursor or Cursor(), problems=[f"{path} does not exist"])
    known = cursor is not None and cursor.tool == tool and cursor.size >= 0
    if not known and not module.detect(path):  # a file read before was recognised then
        others = [t for t in identify(path) if t != tool]
        hint = f"it looks like a {others[0]} file" if others else "its format is not recognised"
        message = f"{path} is not a {tool} log ({hint}); nothing was read"
        return ReadResult([], cursor or Cursor(), problems=[message])
    result: ReadResult = module.read(path, cursor)
    return result


def locate_all(
    home: Path, platform: str, env: Mapping[str, str] | None = None
) -> dict[str, list[Path]]:
    return {name: module.locate(home, platform, env) for name, module in PARSERS.items()}
