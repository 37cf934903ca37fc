"""`ctx hook record`: Claude Code hook inputs recorded as session events through the real CLI;
PreCompact builds the resume snapshot and SessionStart (source compact) injects it."""

from __future__ import annotations

import json
from typing import Any

from ingest.models import Session, SessionEvent
from tests.cli.conftest import Cli

SID = "5b1d0c6e-hook-test"
BASE = {
    "session_id": SID,
    "transcript_path": f"/home/dev/.claude/projects/-home-dev-shop-app/{SID}.jsonl",
    "cwd": "/home/dev/shop-app",
}
TODOS = [
    {"content": "reproduce the flaky upload test", "status": "completed", "activeForm": "x"},
    {"content": "add a retry around the upload", "status": "in_progress", "activeForm": "y"},
]
HOOKS: list[dict[str, Any]] = [
    {"hook_event_name": "SessionStart", "source": "startup"},
    {"hook_event_name": "UserPromptSubmit", "prompt": "Never deploy on Fridays."},
    {"hook_event_name": "UserPromptSubmit", "prompt": "fix the flaky upload test"},
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "/home/dev/shop-app/tests/test_upload.py"},
        "tool_response": {"type": "text"},
    },
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/home/dev/shop-app/src/upload.py", "old_string": "a"},
        "tool_response": {"filePath": "/home/dev/shop-app/src/upload.py"},
    },
    {"hook_event_name": "PostToolUse", "tool_name": "TodoWrite", "tool_input": {"todos": TODOS}},
    {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest tests/test_upload.py"},
        "error": "Exit code 1: AssertionError: upload retried 0 times",
    },
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -am 'retry uploads'"},
        "tool_response": {"stdout": "[main 1a2b3c] retry uploads", "stderr": ""},
    },
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},  # records nothing
        "tool_response": {"stdout": "", "stderr": ""},
    },
    {"hook_event_name": "SubagentStop", "agent_type": "Explore", "last_assistant_message": "ok"},
]


def hook(cli: Cli, body: dict[str, Any]) -> Any:
    return cli("hook", "record", stdin=json.dumps({**BASE, **body}))


def test_it_survives_compaction_through_the_real_cli(cli: Cli) -> None:
    for body in HOOKS:
        run = hook(cli, body)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), (body, run)
    kinds = list(SessionEvent.objects.order_by("seq").values_list("kind", flat=True))
    assert kinds == [
        "session",
        "rule",
        "user_prompt",
        "file_read",
        "file_edit",
        "task",
        "error",
        "git",
        "subagent",
    ]
    session = Session.objects.get(external_id=SID)
    assert (session.tool, session.project_root) == ("claude-code", "/home/dev/shop-app")
    pre = hook(cli, {"hook_event_name": "PreCompact", "trigger": "auto"})
    assert pre.returncode == 0 and pre.stdout == "" and "resume snapshot of" in pre.stderr
    run = hook(cli, {"hook_event_name": "SessionStart", "source": "compact"})
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    context = out["additionalContext"]
    assert len(context.encode()) <= 2048
    for line in (
        "> fix the flaky upload test",
        "- Never deploy on Fridays.",
        "- [~] add a retry around the upload",
        "- edited `/home/dev/shop-app/src/upload.py`",
        "AssertionError: upload retried 0 times",
        "git commit -am 'retry uploads'",
    ):
        assert line in context, line


def test_it_never_stands_in_the_agents_way(cli: Cli, offline_cli: Cli) -> None:
    assert hook(cli, {"hook_event_name": "UserPromptSubmit", "prompt": "ship it"}).returncode == 0
    assert hook(cli, {"hook_event_name": "PreCompact", "trigger": "manual"}).returncode == 0
    offline_cli.home = cli.home  # the same machine, the server gone
    run = hook(offline_cli, {"hook_event_name": "SessionStart", "source": "compact"})
    assert run.returncode == 0 and "cannot reach" in run.stderr
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "> ship it" in context  # the copy PreCompact kept
    broken = offline_cli("hook", "record", stdin="{not json")
    assert (broken.returncode, broken.stdout) == (0, "") and "not JSON" in broken.stderr


def test_session_end_writes_the_open_page_of_events_into_search(cli: Cli) -> None:
    """Events after a page's first are written at the next flush; at the end of a session no
    later event brings one, so SessionEnd has the server write the page at once."""
    from ctx.models import Block

    for body in HOOKS:
        assert hook(cli, body).returncode == 0

    def page() -> str:
        return str(Block.objects.get(category="sessions/claude-code/events").content)

    assert "retry uploads" not in page()  # still waiting for the flush interval
    run = hook(cli, {"hook_event_name": "SessionEnd", "reason": "logout"})
    assert (run.returncode, run.stdout) == (0, ""), run.stderr
    assert "retry uploads" in page() and "session ended (logout)" in page()
