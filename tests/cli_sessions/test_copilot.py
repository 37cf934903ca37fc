from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ctx_cli.sessions.parsers import copilot
from tests.cli_sessions.conftest import read_home, roles

V3 = "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f"
V1 = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
LOG = "9d0e1f2a-3b4c-4d5e-8f6a-7b8c9d0e1f2a"
EMPTY_WINDOW = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
OLDEST = "0f1e2d3c-4b5a-4968-8776-655443322110"
CLI = "4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b"
WORKSPACE = Path(".config/Code/User/workspaceStorage/1a2b3c4d/chatSessions")


def test_it_finds_every_generation(fixture_home: Callable[[str], Path]) -> None:
    home = fixture_home("copilot")
    found = copilot.locate(home, "linux")
    assert sorted(p.suffix for p in found) == [
        ".json",
        ".json",
        ".json",
        ".jsonl",
        ".jsonl",
        ".vscdb",
    ]
    moved = home / "cfg"
    (home / ".config").rename(moved)
    assert len(copilot.locate(home, "linux", {"XDG_CONFIG_HOME": str(moved)})) == 6
    appdata = home / "AppData" / "Roaming"
    appdata.mkdir(parents=True)
    moved.rename(appdata / "x")
    (appdata / "x" / "Code").rename(appdata / "Code")
    assert len(copilot.locate(home, "win32")) == 6


def test_it_reads_version_3_with_tools_and_edits(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("copilot", fixture_home("copilot"))[V3]
    assert session.project_root == "/home/dev/web-shop"  # workspace.json beside the storage
    assert session.title == "Coupon validation"
    assert [m.text for m in session.messages] == [
        "Where are coupons validated?",
        "Coupons are validated in `coupon.ts`, in `validateCoupon`.",
        "Reject expired coupons",
        "`validateCoupon` now rejects coupons past `expiresAt`.",
    ]
    assert session.messages[3].tool_calls == ["copilot_readFile: Read coupon.ts", "Edit: coupon.ts"]
    # the answer's time is the request's plus its total elapsed time
    assert session.messages[1].timestamp == datetime(2026, 1, 1, 10, 0, 2, 500000, tzinfo=UTC)


def test_it_reads_versions_1_and_2_and_the_oldest_database_row(
    fixture_home: Callable[[str], Path],
) -> None:
    sessions = read_home("copilot", fixture_home("copilot"))
    assert [m.text for m in sessions[V1].messages] == [
        "explain the cart reducer",
        "It sums line items and applies the discount.",
    ]
    assert sessions[EMPTY_WINDOW].title == "Regex for dates"
    assert sessions[EMPTY_WINDOW].project_root is None  # a window without a folder
    assert sessions[OLDEST].project_root == "/home/dev/old-widget"
    assert roles(sessions[OLDEST]) == ["user", "assistant"]


def test_it_replays_the_mutation_log(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("copilot", fixture_home("copilot"))[LOG]
    assert session.title == "Checkout spinner"
    assert [m.text for m in session.messages] == [
        "Add a loading spinner to checkout",
        "Added a `Spinner` while the order is submitted.",
    ]  # the canceled request was deleted by the last mutation


def test_it_returns_a_growing_answer_once_more_as_revised(
    fixture_home: Callable[[str], Path],
) -> None:
    path = fixture_home("copilot") / WORKSPACE / f"{LOG}.jsonl"
    first = copilot.read(path)
    with path.open("a") as f:
        f.write(
            json.dumps({"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": " Done."}]})
            + "\n"
        )
    again = copilot.read(path, first.cursor)
    (revised,) = again.sessions[0].messages
    assert revised.index == 1 and revised.flags == ["revised"]
    assert revised.text == "Added a `Spinner` while the order is submitted. Done."
    assert copilot.read(path, again.cursor).sessions == []


def test_it_reads_copilot_cli_events(fixture_home: Callable[[str], Path]) -> None:
    session = read_home("copilot", fixture_home("copilot"))[CLI]
    assert (session.project_root, session.git_branch) == ("/home/dev/cli-tool", "dev")
    assert session.meta["origin"] == "copilot-cli"
    assert roles(session) == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1].tool_calls == ["bash: ls src"]
    assert session.messages[2].text == "[bash] main.rs"
