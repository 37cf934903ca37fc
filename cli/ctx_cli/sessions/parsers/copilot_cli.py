"""Copilot CLI `events.jsonl`: typed events `{id, parentId, timestamp, type, data}`."""

from __future__ import annotations

from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.files import Line
from ctx_cli.sessions.jsonl import Handler
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    as_dict,
    as_list,
    clip,
    kind_of,
    parse_time,
    stringify,
    tool_summary,
)

ENVELOPE = {"id", "parentId", "timestamp", "type", "data", "ephemeral"}
SKIPPED = {
    "assistant.turn_start", "assistant.turn_end", "assistant.message_delta",
    "assistant.reasoning", "assistant.reasoning_delta", "assistant.thinking",
    "assistant.intent", "assistant.usage", "permission.requested", "permission.completed",
    "subagent.started", "subagent.completed", "subagent.failed", "subagent.selected",
    "system.message", "session.error", "session.shutdown", "session.info", "session.warning",
    "session.idle", "session.resume", "session.handoff", "session.truncation",
    "session.snapshot_rewind", "session.mode_changed", "session.plan_changed",
    "session.workspace_file_changed", "session.usage_info", "session.compaction_start",
    "session.compaction_complete", "tool.execution_start", "tool.execution_partial_result",
    "tool.execution_progress", "tool.user_requested", "skill.invoked", "hook.start",
    "hook.end", "abort",
}  # fmt: skip


class CopilotCliHandler(Handler):
    tool = "copilot"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.key: str = self.extra.get("session") or self.path.parent.name
        self.calls: dict[str, str] = dict(self.extra.get("calls") or {})

    def record(self, record: dict[str, Any], line: Line) -> None:
        for key in record:
            if key not in ENVELOPE:
                self.drift.unknown_field(f"event.{key}", line.where)
        kind = kind_of(record.get("type"))
        data = as_dict(record.get("data"))
        stamp = parse_time(record.get("timestamp"))
        ident = record.get("id") if isinstance(record.get("id"), str) else None
        if kind == "session.start":
            self._start(data, stamp)
        elif kind == "user.message":
            self._add(Draft("user", [_content(data)], timestamp=stamp, external_id=ident))
        elif kind == "assistant.message":
            self._answer(data, stamp, ident)
        elif kind == "tool.execution_complete":
            self._result(data, stamp, ident)
        elif kind == "tool.execution_start":
            self.calls[str(data.get("toolCallId"))] = clip(data.get("toolName"), 80) or "tool"
        elif kind == "session.model_change":
            self._session().note("model", data.get("newModel") or data.get("model"))
        elif kind == "session.title_changed":
            self._session().title(data.get("title"))
        elif kind not in SKIPPED:
            self.drift.unknown_type(str(kind), line.where)

    def _start(self, data: dict[str, Any], stamp: Any) -> None:
        if self.full and not self.builds and isinstance(data.get("sessionId"), str):
            self.key = data["sessionId"]
        build = self._session()
        context = as_dict(data.get("context"))
        build.project(context.get("cwd") or context.get("gitRoot"))
        build.branch(context.get("branch"))
        build.touch(parse_time(data.get("startTime")) or stamp)
        build.note("version", data.get("copilotVersion"))
        build.note("origin", "copilot-cli")

    def _answer(self, data: dict[str, Any], stamp: Any, ident: str | None) -> None:
        draft = Draft("assistant", [_content(data)], timestamp=stamp)
        draft.external_id = data.get("messageId") or ident
        requests = as_list(data.get("toolRequests"))
        for request in requests:
            if isinstance(request, dict):
                name = request.get("name") or request.get("toolName")
                draft.tool_calls.append(tool_summary(name, request.get("arguments")))
                self.calls[str(request.get("toolCallId"))] = clip(name, 80) or "tool"
        if data.get("model"):
            self._session().note("model", data.get("model"))
        self._add(draft)

    def _result(self, data: dict[str, Any], stamp: Any, ident: str | None) -> None:
        name = self.calls.get(str(data.get("toolCallId")), "tool")
        result = data.get("result")
        body = stringify(result.get("content") if isinstance(result, dict) else result)
        if not body and isinstance(data.get("error"), (dict, str)):
            body = stringify(data["error"])
        draft = Draft("tool", [f"[{name}] {body}"], timestamp=stamp, external_id=ident)
        draft.limit = MAX_TOOL_TEXT
        if data.get("success") is False:
            draft.flag("error")
        self._add(draft)

    def _session(self) -> SessionBuild:
        build = self.build(self.key)
        build.note("origin", "copilot-cli")
        return build

    def _add(self, draft: Draft) -> None:
        self._session().add(draft)

    def finish(self) -> None:
        self.extra["session"] = self.key
        self.extra["calls"] = dict(list(self.calls.items())[-200:])


def _content(data: dict[str, Any]) -> str:
    value = data.get("content")
    text = value if isinstance(value, str) else stringify(value, 10**9)
    attachments = data.get("attachments")
    if isinstance(attachments, list) and attachments:
        text = f"{text}\n[{len(attachments)} attachment(s)]"
    return text
