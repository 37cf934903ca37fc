from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ctx_cli.sessions.parsers import gemini
from tests.cli_sessions.conftest import read_home, roles

CURRENT = "6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d"
SUBAGENT = "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
LEGACY = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"


def test_it_finds_json_jsonl_and_subagent_chats(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("gemini")
    found = gemini.locate(home, "win32")
    assert sorted(p.suffix for p in found) == [".json", ".jsonl", ".jsonl"]
    assert gemini.locate(home, "linux", {"GEMINI_CLI_HOME": str(home / "nowhere")}) == []


def test_it_replays_rewinds_and_titles(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("gemini", fixture_home("gemini"))[CURRENT]
    assert session.title == "Accent-insensitive search"
    assert [m.text for m in session.messages] == [
        "Why does search miss accented words?",
        "The index lower-cases but does not strip accents.",
        "[read_file] export const normalise = (s) => s.toLowerCase();",
        "Fix it with NFD normalisation instead",  # "Rewrite it in Rust" was rewound
        "Done: `normalise` now strips combining marks after NFD.",
    ]  # info and error messages are not conversation
    assert session.messages[1].tool_calls == ["read_file: /home/dev/notes-app/src/search.ts"]
    assert roles(session) == ["user", "assistant", "tool", "user", "assistant"]


def test_it_attributes_projects_from_recorded_paths_only(
    fixture_home: Callable[[str], Path],
) -> None:
    home = fixture_home("gemini")
    sessions = read_home("gemini", home)
    assert sessions[CURRENT].project_root == "/home/dev/notes-app"  # registry slug
    assert sessions[LEGACY].project_root == "/home/dev/legacy-site"  # sha256 of a registry path
    (home / ".gemini" / "projects.json").unlink()
    (home / ".gemini/tmp/notes-app/.project_root").write_text("/srv/notes\n")
    again = read_home("gemini", home)
    assert again[CURRENT].project_root == "/srv/notes"  # the folder's own marker
    assert again[LEGACY].project_root is None  # a hash alone is never guessed back


def test_it_reads_subagent_and_legacy_chats(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("gemini")
    sessions = read_home("gemini", home)
    sub = sessions[SUBAGENT]
    assert sub.is_sidechain and sub.parent_external_id == CURRENT
    legacy = sessions[LEGACY]
    assert roles(legacy) == ["user", "assistant", "tool", "user", "assistant"]
    assert legacy.messages[1].tool_calls == ["run_shell_command: grep -n header styles.css"]
    assert legacy.messages[4].text == "Added `position: sticky; top: 0` to `.header`."
    legacy_folder = hashlib.sha256(b"/home/dev/legacy-site").hexdigest()
    assert legacy_folder in str(gemini.locate(home, "linux"))
