"""ingest.enrich: the files and tools a saved text mentions (pure)."""

from __future__ import annotations

from ingest import enrich


def test_it_finds_files_with_folders_known_extensions_and_bare_names() -> None:
    text = (
        "Moved settings to pyproject.toml and src/app/main.py; C:\\work\\run.ps1 too. "
        "See https://example.com/docs/page.html and ../lib/util.ts. Dockerfile changed. "
        "Version 1.2.3, mail a@b.io, the file example.com is a domain."
    )
    assert enrich.files(text) == [
        "pyproject.toml",
        "src/app/main.py",
        "C:\\work\\run.ps1",
        "../lib/util.ts",
        "Dockerfile",
    ]


def test_it_finds_tools_as_whole_words_but_not_common_words() -> None:
    text = "Ran pytest and git rebase in Claude Code; make sure to go on. Docker-compose? no."
    assert enrich.tools(text) == ["claude-code", "pytest", "git"]
