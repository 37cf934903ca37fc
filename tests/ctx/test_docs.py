"""Docs stay true: every setting and error code the code declares is documented."""

from __future__ import annotations

from pathlib import Path

from ctx.docgen import SETTINGS_MD, settings_markdown
from ctx.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[2]


def test_it_keeps_the_settings_reference_generated() -> None:
    assert SETTINGS_MD.read_text() == settings_markdown(), "run: python -m ctx.docgen"


def test_it_documents_every_error_code() -> None:
    api = (ROOT / "docs" / "api.md").read_text()
    missing = [c.value for c in ErrorCode if f"`{c.value}`" not in api]
    assert missing == []


def test_it_shows_the_two_commands_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
