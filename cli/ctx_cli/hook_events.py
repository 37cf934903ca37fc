"""Claude Code hook inputs as session events (`ctx hook record`), and the local copy of the
resume snapshot.

Each hook event maps to at most one session event for `POST /api/sessions/events`:

| hook | event |
|---|---|
| UserPromptSubmit | `user_prompt`; `rule` when it starts like a standing instruction ("always…") |
| PostToolUse Read | `file_read` (the path) |
| PostToolUse Edit, MultiEdit, Write, NotebookEdit | `file_edit` (the path) |
| PostToolUse Bash running `git …` | `git` (the command) |
| PostToolUse TodoWrite | `task` (the whole list in `data.todos`) |
| PostToolUse Task / Agent | `subagent` (started: its type and description) |
| PostToolUse with an error result, PostToolUseFailure | `error` (the tool and the message) |
| SubagentStop | `subagent` (finished) |
| PreCompact | `compact` (and the server builds the snapshot) |
| SessionStart | `session` (with source `compact`: the snapshot comes back to inject) |
| SessionEnd | `session` (ended; `data.ended`, the reason, has the server write the open page) |

Anything else records nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_cli.config import state_home

TOOL = "claude-code"
TEXT_CHARS = 1000  # the server takes 2,000; an event is a line, not a document
DATA_BYTES = 3500  # the server takes 4,096 bytes of JSON
MAX_TODOS = 30
TODO_CHARS = 200
EDITS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
SUBAGENT_TOOLS = ("Task", "Agent")
RULE = re.compile(
    r"^\s*(always|never|from now on|remember( to| that)?|don'?t|do not|rule:)\b", re.IGNORECASE
)
GIT = re.compile(r"(?:^|[;&|(]\s*)git\s")


def _cut(text: Any, limit: int = TEXT_CHARS) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _event(kind: str, text: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"kind": kind, "text": text}
    if data and len(json.dumps(data).encode()) <= DATA_BYTES:
        event["data"] = data
    return event


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _prompt(hook: Mapping[str, Any]) -> dict[str, Any] | None:
    prompt = str(hook.get("prompt") or "")
    if not prompt.strip():
        return None
    return _event("rule" if RULE.match(prompt) else "user_prompt", _cut(prompt))


def _path(tool_input: Mapping[str, Any]) -> str:
    return str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")


def _todos(tool_input: Mapping[str, Any]) -> dict[str, Any] | None:
    todos = [t for t in tool_input.get("todos") or [] if isinstance(t, dict)][:MAX_TODOS]
    if not todos:
        return None
    slim = [
        {"content": _cut(t.get("content"), TODO_CHARS), "status": str(t.get("status") or "")}
        for t in todos
    ]
    done = sum(t["status"] == "completed" for t in slim)
    return _event("task", f"{len(slim)} tasks, {done} done", {"todos": slim})


def _error_of(response: Any) -> str:
    """The error a tool's result reports, or ''."""
    if not isinstance(response, dict):
        return ""
    if response.get("is_error") or response.get("error"):
        return str(response.get("error") or response.get("content") or "error")
    return ""


def _subagent(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    kind = str(tool_input.get("subagent_type") or "agent")
    return _event("subagent", _cut(f"started {kind}: {tool_input.get('description') or ''}"))


def _tool_use(hook: Mapping[str, Any]) -> dict[str, Any] | None:
    name = str(hook.get("tool_name") or "")
    tool_input = _mapping(hook.get("tool_input"))
    error = _error_of(hook.get("tool_response"))
    if error:
        return _event("error", _cut(f"{name}: {error}"))
    if name == "Read" and _path(tool_input):
        return _event("file_read", _path(tool_input), {"path": _path(tool_input)})
    if name in EDITS and _path(tool_input):
        return _event("file_edit", _path(tool_input), {"path": _path(tool_input)})
    if name == "Bash" and GIT.search(str(tool_input.get("command") or "")):
        return _event("git", _cut(tool_input.get("command"), 300))
    if name == "TodoWrite":
        return _todos(tool_input)
    if name in SUBAGENT_TOOLS:
        return _subagent(tool_input)
    return None


def _failure(hook: Mapping[str, Any]) -> dict[str, Any]:
    name = str(hook.get("tool_name") or "tool")
    command = _mapping(hook.get("tool_input")).get("command")
    what = f"{name} `{_cut(command, 200)}`" if command else name
    return _event("error", _cut(f"{what}: {hook.get('error') or 'failed'}"))


def _subagent_stop(hook: Mapping[str, Any]) -> dict[str, Any]:
    kind = str(hook.get("agent_type") or "agent")
    said = _cut(hook.get("last_assistant_message"), 300)
    return _event("subagent", f"finished {kind}" + (f": {said}" if said else ""))


def event_for(hook: Mapping[str, Any]) -> dict[str, Any] | None:
    """The session event a hook input records, or None."""
    name = hook.get("hook_event_name")
    if name == "UserPromptSubmit":
        return _prompt(hook)
    if name == "PostToolUse":
        return _tool_use(hook)
    if name == "PostToolUseFailure":
        return _failure(hook)
    if name == "SubagentStop":
        return _subagent_stop(hook)
    if name == "PreCompact":
        return _event("compact", f"compaction ({hook.get('trigger') or 'auto'})")
    if name == "SessionStart":
        return _event("session", f"session {hook.get('source') or 'startup'}")
    if name == "SessionEnd":
        reason = _cut(hook.get("reason") or "other", 100)
        return _event("session", f"session ended ({reason})", {"ended": reason})
    return None


def wants_snapshot(hook: Mapping[str, Any]) -> bool:
    """PreCompact has the server build it; SessionStart after a compaction injects it.
    (SessionEnd needs none: its event's `data.ended` has the server write the open page.)"""
    name = hook.get("hook_event_name")
    return name == "PreCompact" or (name == "SessionStart" and hook.get("source") == "compact")


# --- the local copy of the snapshot --------------------------------------------------------


def snapshot_path(session_id: str, environ: Mapping[str, str]) -> Path:
    """Where PreCompact keeps the snapshot, so SessionStart has it when the server is away.
    By the host's session id only: the conversation is the same whichever server it uses."""
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:24]
    return state_home(environ) / "snapshots" / f"{digest}.md"


KEEP_SNAPSHOTS_SECONDS = 7 * 24 * 3600


def save_snapshot(path: Path, markdown: str, now: float) -> None:
    """Write this session's copy; forget copies older than a week."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(markdown, encoding="utf-8")
    for old in path.parent.glob("*.md"):
        try:
            if now - old.stat().st_mtime > KEEP_SNAPSHOTS_SECONDS:
                old.unlink()
        except OSError:
            continue


def load_snapshot(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""
