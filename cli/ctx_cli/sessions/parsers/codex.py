"""OpenAI Codex CLI: rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, both envelope
generations) and the prompt history `~/.codex/history.jsonl`.

Current rollouts: prompts come from `event_msg` `user_message` (the `response_item` user and
developer messages carry injected context: AGENTS.md, `<environment_context>`), answers from
`response_item` assistant messages (the duplicate `agent_message` events are skipped), tool
calls as summaries (consecutive calls form one assistant step), tool output as role `tool`,
`compacted` summaries as `system`. Reasoning is skipped. Legacy rollouts: a bare session object,
then bare items; injected user context is recognised by its tags. `history.jsonl` gives
prompt-only sessions for conversations whose rollout is gone (otherwise it would repeat them).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild, emit_tail
from ctx_cli.sessions.files import Line, first_records
from ctx_cli.sessions.jsonl import Handler, read_jsonl
from ctx_cli.sessions.model import Cursor, ReadResult, Session
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    as_dict,
    clip,
    kind_of,
    parse_time,
    stringify,
    tool_summary,
)

TOOL = "codex"

ENVELOPE = {"timestamp", "type", "payload"}
TOP_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
TOP_SKIPPED = {"world_state", "inter_agent_communication_metadata"}
ITEM_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
ITEM_OUTPUTS = {"function_call_output", "custom_tool_call_output"}
ITEM_SKIPPED = {"reasoning", "ghost_snapshot", "compaction", "other"}
EVENTS_SKIPPED = {
    "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "token_count",
    "exec_command_begin", "exec_command_end", "exec_command_output_delta", "turn_aborted",
    "error", "task_started", "task_complete", "patch_apply_begin", "patch_apply_end",
    "mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end",
    "turn_diff", "plan_update", "entered_review_mode", "exited_review_mode", "stream_error",
    "background_event", "shutdown_complete", "view_image_tool_call", "warning",
    "agent_reasoning_section_break", "item_started", "item_completed", "context_compacted",
    "turn_started", "turn_complete", "session_configured", "user_message_edited",
}  # fmt: skip
INJECTED = re.compile(
    r"^\s*(<environment_context>|<user_instructions>|<permissions instructions>|<INSTRUCTIONS>|"
    r"# AGENTS\.md instructions|<turn_aborted>|<user_shell_command>)"
)
_ROLLOUT_ID = re.compile(r"rollout-.*?([0-9a-fA-F]{8}-[0-9a-fA-F-]{27})\.jsonl$")


def detect(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    records = first_records(path, 5)
    if not records:
        return False
    first = records[0]
    if "payload" in first and kind_of(first.get("type")) in TOP_TYPES | TOP_SKIPPED:
        return True
    if "instructions" in first and "id" in first and "timestamp" in first:
        return True  # the legacy rollout's bare session object
    if "record_type" in first or (first.get("type") == "message" and "role" in first):
        return True
    return "ts" in first and "text" in first and _history_id(first) is not None


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Rollouts and `history.jsonl` under `$CODEX_HOME` (if set) or `~/.codex`."""
    root = Path(env["CODEX_HOME"]) if env and env.get("CODEX_HOME") else home / ".codex"
    found: set[Path] = set()
    for folder in ("sessions", "archived_sessions"):
        if (root / folder).is_dir():
            found.update((root / folder).rglob("rollout-*.jsonl"))
    if (root / "history.jsonl").is_file():
        found.add(root / "history.jsonl")
    return sorted(found)


def read(path: Path, cursor: Cursor | None = None) -> ReadResult:
    if path.name == "history.jsonl" or _looks_like_history(path):
        return read_jsonl(path, cursor, HistoryHandler)
    return read_jsonl(path, cursor, RolloutHandler)


def _looks_like_history(path: Path) -> bool:
    records = first_records(path, 1)
    return bool(records) and "ts" in records[0] and _history_id(records[0]) is not None


def _history_id(record: dict[str, Any]) -> str | None:
    value = record.get("session_id") or record.get("conversation_id")
    return value if isinstance(value, str) and value else None


class RolloutHandler(Handler):
    tool = TOOL

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        match = _ROLLOUT_ID.search(self.path.name)
        self.key: str = self.extra.get("session") or (match.group(1) if match else self.path.stem)
        self.generation: str | None = self.extra.get("generation")
        self.call_names: dict[str, str] = dict(self.extra.get("calls") or {})
        self.step: Draft | None = None  # the open group of consecutive tool calls
        self.last: Draft | None = None

    def record(self, record: dict[str, Any], line: Line) -> None:
        if self.generation is None:
            self.generation = "current" if "payload" in record else "legacy"
        if self.generation == "current":
            self._current(record, line)
        else:
            self._legacy(record, line)

    # -- current generation --------------------------------------------------------------

    def _current(self, record: dict[str, Any], line: Line) -> None:
        kind, payload = kind_of(record.get("type")), record.get("payload")
        for key in record:
            if key not in ENVELOPE:
                self.drift.unknown_field(f"envelope.{key}", line.where)
        if not isinstance(payload, dict):
            self.drift.missing_field("payload", line.where)
            return
        stamp = parse_time(record.get("timestamp"))
        if kind == "session_meta":
            self._meta(payload, stamp)
        elif kind == "turn_context":
            self._session().project(payload.get("cwd"))
            self._session().note("model", payload.get("model"))
        elif kind == "response_item":
            self._item(payload, stamp, line, prompts_from_events=True)
        elif kind == "event_msg":
            self._event(payload, stamp, line)
        elif kind == "compacted":
            self._compacted(payload, stamp)
        elif kind not in TOP_SKIPPED:
            self.drift.unknown_type(str(kind), line.where)

    def _meta(self, payload: dict[str, Any], stamp: Any) -> None:
        if not self.builds and isinstance(payload.get("id"), str) and self.full:
            self.key = payload["id"]  # the first session_meta names the conversation
        build = self._session()
        build.project(payload.get("cwd"))
        build.touch(parse_time(payload.get("timestamp")) or stamp)
        git = as_dict(payload.get("git"))
        build.branch(git.get("branch"))
        build.commit(git.get("commit_hash"))
        build.note("version", payload.get("cli_version"))
        build.note("originator", payload.get("originator"))
        build.note("source", payload.get("source"))
        build.note("forked_from", payload.get("forked_from_id"))
        if payload.get("source") == "subagent":
            build.session.is_sidechain = True

    def _event(self, payload: dict[str, Any], stamp: Any, line: Line) -> None:
        kind = kind_of(payload.get("type"))
        if kind == "user_message":
            text = str(payload.get("message") or "")
            images = payload.get("images") or []
            if isinstance(images, list) and images:
                text = f"{text}\n[{len(images)} image(s)]"
            self._add(Draft("user", [text], timestamp=stamp))
        elif kind not in EVENTS_SKIPPED:
            self.drift.unknown_type(f"event_msg:{kind}", line.where)

    def _compacted(self, payload: dict[str, Any], stamp: Any) -> None:
        text = payload.get("message")  # the summary is in `message`, not `summary`/`text`
        if isinstance(text, str) and text.strip():
            draft = Draft("system", [text], timestamp=stamp)
            draft.flag("compact_summary")
            self._add(draft)

    # -- items (both generations) --------------------------------------------------------

    def _item(
        self, item: dict[str, Any], stamp: Any, line: Line, prompts_from_events: bool
    ) -> None:
        kind = kind_of(item.get("type"))
        if kind == "message":
            self._message(item, stamp, prompts_from_events)
        elif kind in ITEM_CALLS:
            self._call(item, stamp)
        elif kind in ITEM_OUTPUTS:
            self._output(item, stamp)
        elif kind not in ITEM_SKIPPED:
            self.drift.unknown_type(f"response_item:{kind}", line.where)

    def _message(self, item: dict[str, Any], stamp: Any, prompts_from_events: bool) -> None:
        role = item.get("role")
        text = _content_text(item.get("content"))
        if role == "assistant":
            self._add(Draft("assistant", [text], timestamp=stamp, external_id=item.get("id")))
        elif role == "user" and not prompts_from_events and not INJECTED.match(text):
            self._add(Draft("user", [text], timestamp=stamp))
        # developer / system messages and injected user context are not conversation

    def _call(self, item: dict[str, Any], stamp: Any) -> None:
        kind = item.get("type")
        name, args = item.get("name"), item.get("arguments", item.get("input"))
        if kind == "local_shell_call":
            action = as_dict(item.get("action"))
            name, args = "shell", action.get("command")
        elif kind == "web_search_call":
            action = as_dict(item.get("action"))
            name, args = "web_search", action.get("query") or action.get("url")
        if isinstance(item.get("call_id"), str):
            self.call_names[item["call_id"]] = clip(name, 80) or "tool"
        if self.step is None or self.step is not self.last:
            self.step = self._add(Draft("assistant", timestamp=stamp, merge_key="tools"))
        self.step.tool_calls.append(tool_summary(name, args))

    def _output(self, item: dict[str, Any], stamp: Any) -> None:
        name = self.call_names.get(str(item.get("call_id")), "tool")
        body = _output_text(item.get("output"))
        draft = Draft("tool", [f"[{name}] {body}"], timestamp=stamp)
        draft.limit = MAX_TOOL_TEXT
        self._add(draft)

    # -- legacy generation ---------------------------------------------------------------

    def _legacy(self, record: dict[str, Any], line: Line) -> None:
        if "record_type" in record:
            return  # {"record_type": "state"} markers
        if "instructions" in record and "id" in record and "type" not in record:
            if self.full and not self.builds and isinstance(record["id"], str):
                self.key = record["id"]
            build = self._session()
            build.touch(parse_time(record.get("timestamp")))
            git = as_dict(record.get("git"))
            build.branch(git.get("branch"))
            build.commit(git.get("commit_hash"))
            return
        if "type" not in record:
            self.drift.missing_field("type", line.where)
            return
        self._item(record, parse_time(record.get("timestamp")), line, prompts_from_events=False)

    # -- plumbing ------------------------------------------------------------------------

    def _session(self) -> SessionBuild:
        return self.build(self.key)

    def _add(self, draft: Draft) -> Draft:
        draft.checkpoint = self.jsonl.checkpoint()
        if draft.external_id is None:
            # Codex items have no ids: the rollout (the session) plus the line number is one.
            draft.external_id = f"line-{draft.checkpoint.lines + 1}"
        self.last = self._session().add(draft)
        return draft

    def finish(self) -> None:
        self.extra["session"] = self.key
        if self.generation:
            self.extra["generation"] = self.generation
        self.extra["calls"] = dict(list(self.call_names.items())[-200:])
        last = self.last
        if last is not None and last.merge_key and last is self.step:
            self.hold_open(self.key, last.checkpoint, emitted=not last.is_empty())


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") == "input_image":
                parts.append("[image]")
    return "\n\n".join(parts)


def _output_text(output: Any) -> str:
    """Tool output: a string, content items, or (older) a JSON string with output + metadata."""
    if isinstance(output, str) and output.lstrip().startswith("{"):
        try:
            decoded = json.loads(output)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            meta = as_dict(decoded.get("metadata"))
            code = meta.get("exit_code")
            prefix = f"exit {code}: " if code is not None else ""
            return prefix + stringify(decoded.get("output"))
    return stringify(output)


class HistoryHandler(Handler):
    """`history.jsonl`: one prompt per line, for conversations whose rollout no longer exists."""

    tool = TOOL

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._rollouts: set[str] | None = None
        self.skipped = 0

    def record(self, record: dict[str, Any], line: Line) -> None:
        key = _history_id(record)
        if key is None:
            self.drift.missing_field("session_id", line.where)
            return
        if key in self.rollouts():
            return
        build = self.build(key)
        build.note("origin", "history.jsonl")
        stamp = parse_time(record.get("ts"))
        mark_last = parse_time(build.mark.meta.get("last_activity_at"))
        if self.full and mark_last is not None and stamp is not None and stamp <= mark_last:
            return  # read before; the file was trimmed at its start, not edited
        build.add(Draft("user", [str(record.get("text") or "")], timestamp=stamp))

    def rollouts(self) -> set[str]:
        if self._rollouts is None:
            self._rollouts = set()
            for folder in ("sessions", "archived_sessions"):
                for _dir, _subdirs, files in os.walk(self.path.parent / folder):
                    for name in files:
                        match = _ROLLOUT_ID.search(name)
                        if match:
                            self._rollouts.add(match.group(1))
        return self._rollouts

    def emit(self, build: SessionBuild) -> Session | None:
        return emit_tail(build, build.mark.n, False)
