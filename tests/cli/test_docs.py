"""docs/cli.md lists every command (conventions §22)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ctx_cli.main import build_parser

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _commands() -> list[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_it_documents_every_command_with_a_heading_and_an_example() -> None:
    text = DOC.read_text()
    for name in _commands():
        assert f"### `ctx {name}`" in text, f"docs/cli.md has no section for `ctx {name}`"
        assert f"ctx {name}" in text.split(f"### `ctx {name}`", 1)[1]


def test_it_documents_the_exit_codes_and_the_config_file() -> None:
    text = DOC.read_text()
    for needle in ("~/.config/ctx/config", "XDG_CONFIG_HOME", "CTX_BASE_URL", "CTX_KEY"):
        assert needle in text
    for code in (0, 1, 2):
        assert re.search(rf"^\| {code} +\|", text, re.MULTILINE), f"exit code {code}"
