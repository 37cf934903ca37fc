from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ctx_cli.sessions import parsers

HOMES = {"claude-code": "claude_code", "codex": "codex", "gemini": "gemini", "cursor": "cursor",
         "copilot": "copilot"}  # fmt: skip


def test_it_lists_every_tool_with_the_same_interface() -> None:
    assert sorted(parsers.PARSERS) == [
        "chatgpt", "claude-ai", "claude-code", "codex", "copilot", "cursor", "gemini",
    ]  # fmt: skip
    for name, module in parsers.PARSERS.items():
        assert name == module.TOOL
        assert all(callable(getattr(module, f)) for f in ("detect", "locate", "read"))
    with pytest.raises(KeyError, match="unknown tool 'aider'"):
        parsers.get("aider")


def test_it_recognises_each_located_file_as_its_own_tool_only(
    fixture_home: Callable[[str], Path],
) -> None:
    for tool, folder in HOMES.items():
        home = fixture_home(folder)
        found = parsers.locate_all(home, "linux", {})
        assert found[tool], tool
        for other, paths in found.items():
            assert other == tool or not paths, (tool, other, paths)
        for path in found[tool]:
            assert parsers.identify(path) == [tool], path
        (home.parent / "home").rename(home.parent / f"done-{folder}")
