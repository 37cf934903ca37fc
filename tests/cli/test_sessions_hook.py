"""`ctx sessions import --hook`: Claude Code's SessionEnd / PreCompact hook JSON on stdin."""

from __future__ import annotations

import json
from pathlib import Path

from ingest.models import Message, Session
from tests.cli.conftest import Cli
from tests.cli_sessions.conftest import make_home

SESSION = "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a"


def _hook(transcript: Path, event: str = "SessionEnd") -> str:
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": "/home/dev/shop-app",
            "hook_event_name": event,
            "reason": "exit",
        }
    )


def _transcript(tmp_path: Path) -> Path:
    root = make_home("claude_code", tmp_path)
    return root / ".claude" / "projects" / "-home-dev-shop-app" / f"{SESSION}.jsonl"


def test_it_uploads_the_transcript_and_its_subagents_then_only_what_is_new(
    cli: Cli, tmp_path: Path
) -> None:
    transcript = _transcript(tmp_path)
    run = cli("sessions", "import", "--hook", stdin=_hook(transcript))
    assert run.returncode == 0 and run.stdout == "", run.stderr
    assert "ctx: 17 new messages" in run.stderr  # 13 + 4 of the subagent
    assert set(Session.objects.values_list("external_id", flat=True)) == {
        SESSION,
        f"{SESSION}:agent-a1b2c3d4",
    }
    before = Message.objects.count()
    again = cli("sessions", "import", "--hook", stdin=_hook(transcript, "PreCompact"))
    assert "ctx: 0 new messages" in again.stderr and Message.objects.count() == before
    line = {
        "type": "user",
        "uuid": "u-late",
        "parentUuid": None,
        "sessionId": SESSION,
        "timestamp": "2026-03-02T10:00:00.000Z",
        "cwd": "/home/dev/shop-app",
        "message": {"role": "user", "content": "compact now please"},
    }
    with transcript.open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    third = cli("sessions", "import", "--hook", stdin=_hook(transcript, "PreCompact"))
    assert "ctx: 1 new messages" in third.stderr
    assert Message.objects.filter(text="compact now please").count() == 1


def test_it_never_fails_the_agent(offline_cli: Cli, tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    for stdin in (_hook(transcript), "not json", "{}"):
        run = offline_cli("sessions", "import", "--hook", stdin=stdin)
        assert run.returncode == 0 and "ctx sessions import --hook:" in run.stderr
