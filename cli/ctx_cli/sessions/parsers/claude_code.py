"""Claude Code: `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl` and subagent transcripts.

Kept: typed prompts, answers (streamed records of one API response merged by `message.id`),
tool calls as short summaries, tool results (role `tool`, bounded), compaction summaries (role
`system`, flagged `compact_summary`), sidechain records (flagged `sidechain`; a subagent file
is its own session with `is_sidechain` and its parent's id). Skipped: thinking blocks,
`attachment` records (injected context), bookkeeping records; `summary` records count only
when their `leafUuid` is in the same file (older builds wrote other sessions' titles in).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.files import Line, first_records
from ctx_cli.sessions.jsonl import Handler, read_jsonl
from ctx_cli.sessions.model import Cursor, ReadResult
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    bound_line,
    kind_of,
    parse_time,
    stringify,
    tool_summary,
)

TOOL = "claude-code"

CONVERSATION = {"user", "assistant", "system", "attachment"}
BOOKKEEPING = {
    "summary", "file-history-snapshot", "queue-operation", "last-prompt", "custom-title",
    "pr-link", "cost-state", "ai-title", "agent-name", "mode", "permission-mode", "atis-latch",
    "progress", "tag",
}  # fmt: skip
ENVELOPE = {
    "type", "uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "cwd",
    "gitBranch", "version", "isSidechain", "userType", "entrypoint", "slug", "isMeta", "agentId",
    "requestId", "message", "toolUseResult", "isCompactSummary", "isVisibleInTranscriptOnly",
    "permissionMode", "promptId", "sourceToolUseID", "sourceToolAssistantUUID", "toolDenialKind",
    "thinkingMetadata", "todos", "isApiErrorMessage", "apiErrorStatus", "error", "subtype",
    "compactMetadata", "content", "level", "toolUseID", "attachment", "durationMs", "teamName",
    "imagePasteIds", "mcpMeta", "hookInfos", "hookErrors", "hookCount", "preventedContinuation",
    "stopReason", "hasOutput", "isApiErrorRetry", "retryInMs", "retryAttempt", "maxRetries",
    "cause", "planContent", "agentName",
}  # fmt: skip
SYSTEM_KEPT = {"local_command": "command_output", "api_error": "error", "away_summary": "summary"}
SYSTEM_SKIPPED = {
    "compact_boundary", "microcompact_boundary", "turn_duration", "stop_hook_summary", "init",
    "informational", "hook_summary", "bridge_status",
}  # fmt: skip
BLOCKS_SKIPPED = {"thinking", "redacted_thinking", "image", "document", "tool_reference"}

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_OUTPUT_TAG = re.compile(
    r"^<(local-command-stdout|local-command-stderr|local-command-caveat|bash-stdout|bash-stderr|"
    r"persisted-output|task-notification|user-prompt-submit-hook)>"
)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT = re.compile(r"^<bash-input>(.*?)</bash-input>", re.S)
_MAX_TOOL_IDS = 200
_MAX_PENDING_TITLES = 20


def detect(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    for record in first_records(path):
        kind = kind_of(record.get("type"))
        if kind in CONVERSATION and ("uuid" in record or "sessionId" in record):
            return "payload" not in record
        if kind == "summary" and "leafUuid" in record:
            return True
        if kind in BOOKKEEPING and ("messageId" in record or "leafUuid" in record):
            return True
    return False


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Session files under `$CLAUDE_CONFIG_DIR` (if set) or `~/.claude`, on every platform."""
    root = Path(env["CLAUDE_CONFIG_DIR"]) if env and env.get("CLAUDE_CONFIG_DIR") else None
    projects = (root or home / ".claude") / "projects"
    if not projects.is_dir():
        return []
    found = set(projects.glob("*/*.jsonl")) | set(projects.glob("*/*/subagents/*.jsonl"))
    return sorted(found)


def read(path: Path, cursor: Cursor | None = None) -> ReadResult:
    return read_jsonl(path, cursor, ClaudeHandler)


def is_subagent_file(path: Path) -> bool:
    return path.name.startswith("agent-") or path.parent.name == "subagents"


class ClaudeHandler(Handler):
    tool = TOOL

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.subagent = is_subagent_file(self.path)
        self.seen: set[str] = set()
        self.by_message_id: dict[str, Draft] = {}
        self.tool_names: dict[str, str] = dict(self.extra.get("tools") or {})
        self.summaries: list[list[str]] = list(self.extra.get("titles") or [])
        self.last: tuple[str, Draft, Any] | None = None

    # -- records -------------------------------------------------------------------------

    def record(self, record: dict[str, Any], line: Line) -> None:
        kind = record.get("type")
        if not isinstance(kind, str):
            self.drift.missing_field("type", line.where)
        elif kind in CONVERSATION:
            self._conversation(kind, record, line)
        elif kind == "summary":
            self._summary(record)
        elif kind in ("custom-title", "ai-title"):
            self._title(kind, record)
        elif kind not in BOOKKEEPING:
            self.drift.unknown_type(kind, line.where)

    def _conversation(self, kind: str, record: dict[str, Any], line: Line) -> None:
        for key in record:
            if key not in ENVELOPE:
                self.drift.unknown_field(f"{kind}.{key}", line.where)
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            if uuid in self.seen:
                return  # resumed sessions repeat records
            self.seen.add(uuid)
        elif kind != "attachment":
            self.drift.missing_field(f"{kind}.uuid", line.where)
        if kind == "attachment":
            return  # injected context (skills, edited files, hook output), not conversation
        if "timestamp" not in record:
            self.drift.missing_field(f"{kind}.timestamp", line.where)
        build = self._session(record)
        if kind == "user":
            self._user(build, record, line)
        elif kind == "assistant":
            self._assistant(build, record, line)
        else:
            self._system(build, record, line)

    def _session(self, record: dict[str, Any]) -> SessionBuild:
        session_id = record.get("sessionId")
        parent = session_id if isinstance(session_id, str) and session_id else None
        if self.subagent:
            agent = record.get("agentId") or self.path.stem.replace("agent-", "", 1)
            key = f"{parent or 'unknown'}:agent-{agent}"
        else:
            key = parent or self.path.stem
        build = self.build(key)
        session = build.session
        if self.subagent:
            session.is_sidechain = True
            session.parent_external_id = parent
        if not session.project_root:
            build.project(record.get("cwd"))
        # Most records repeat the same values: compare before cleaning them up (hot path).
        branch, version = record.get("gitBranch"), record.get("version")
        if branch and branch != session.git_branch:
            build.branch(branch)
        if version and version != session.meta.get("version"):
            build.note("version", version)
        return build

    def _draft(self, build: SessionBuild, draft: Draft, record: dict[str, Any]) -> Draft:
        if record.get("isSidechain") and not self.subagent:
            draft.flag("sidechain")
        draft.checkpoint = self.jsonl.checkpoint()
        self.last = (build.key, draft, draft.checkpoint)
        return build.add(draft)

    # -- user ----------------------------------------------------------------------------

    def _user(self, build: SessionBuild, record: dict[str, Any], line: Line) -> None:
        stamp = parse_time(record.get("timestamp"))
        message = record.get("message")
        if not isinstance(message, dict):
            self.drift.missing_field("user.message", line.where)
            return
        content = message.get("content")
        uuid = record.get("uuid") if isinstance(record.get("uuid"), str) else None
        if record.get("isCompactSummary"):
            draft = Draft("system", [stringify(content, 10**9)], timestamp=stamp, external_id=uuid)
            draft.flag("compact_summary")
            self._draft(build, draft, record)
            return
        if isinstance(content, str):
            self._user_text(build, record, content, stamp, uuid)
        elif isinstance(content, list):
            self._user_blocks(build, record, content, stamp, uuid)
        else:
            self.drift.missing_field("user.message.content", line.where)

    def _user_text(
        self, build: SessionBuild, record: dict[str, Any], text: str, stamp: Any, uuid: Any
    ) -> None:
        role, clean, flags = classify_user_text(text)
        if record.get("isMeta"):
            role, flags = "system", [*flags, "injected"]
        draft = Draft(role, [clean], timestamp=stamp, external_id=uuid, flags=flags)
        self._draft(build, draft, record)

    def _user_blocks(
        self, build: SessionBuild, record: dict[str, Any], blocks: list[Any], stamp: Any, uuid: Any
    ) -> None:
        texts: list[str] = []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text":
                texts.append(str(block.get("text") or ""))
            elif isinstance(block, dict) and block.get("type") == "image":
                texts.append("[image]")
        if texts and any(t.strip() for t in texts):
            self._user_text(build, record, "\n\n".join(texts), stamp, uuid)
        for i, block in enumerate(results):
            ident = uuid if len(results) == 1 else f"{uuid}:{i}"
            self._tool_result(build, record, block, stamp, ident)

    def _tool_result(
        self, build: SessionBuild, record: dict[str, Any], block: dict[str, Any], stamp: Any,
        ident: Any,
    ) -> None:  # fmt: skip
        name = self.tool_names.get(str(block.get("tool_use_id")), "tool")
        body = stringify(block.get("content"))
        if not body.strip():
            body = stringify(record.get("toolUseResult"))
        draft = Draft("tool", [f"[{name}] {body}"], timestamp=stamp, external_id=ident)
        draft.limit = MAX_TOOL_TEXT
        if block.get("is_error"):
            draft.flag("error")
        self._draft(build, draft, record)

    # -- assistant -----------------------------------------------------------------------

    def _assistant(self, build: SessionBuild, record: dict[str, Any], line: Line) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            self.drift.missing_field("assistant.message", line.where)
            return
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        draft = self.by_message_id.get(message_id) if message_id else None
        if draft is None:
            stamp = parse_time(record.get("timestamp"))
            ident = message_id or record.get("uuid")
            draft = Draft("assistant", timestamp=stamp, external_id=ident, merge_key=message_id)
            self._draft(build, draft, record)
            if message_id:
                self.by_message_id[message_id] = draft
        model = message.get("model")
        if model and model != "<synthetic>":
            build.note("model", model)
        if record.get("isApiErrorMessage"):
            draft.flag("error")
        self._assistant_content(draft, message.get("content"), line)

    def _assistant_content(self, draft: Draft, content: Any, line: Line) -> None:
        if isinstance(content, str):
            draft.parts.append(content)
            return
        if not isinstance(content, list):
            self.drift.missing_field("assistant.message.content", line.where)
            return
        for block in content:
            kind = kind_of(block.get("type")) if isinstance(block, dict) else ""
            if kind == "text":
                draft.parts.append(str(block.get("text") or ""))
            elif kind in ("tool_use", "server_tool_use"):
                self._tool_use(draft, block)
            elif kind not in BLOCKS_SKIPPED:
                self.drift.unknown_type(f"assistant.content.{kind}", line.where)

    def _tool_use(self, draft: Draft, block: dict[str, Any]) -> None:
        name = str(block.get("name") or "tool")
        draft.tool_calls.append(tool_summary(name, block.get("input")))
        if isinstance(block.get("id"), str):
            self.tool_names[block["id"]] = bound_line(name, 80)

    # -- system and titles ---------------------------------------------------------------

    def _system(self, build: SessionBuild, record: dict[str, Any], line: Line) -> None:
        subtype = str(record.get("subtype") or "")
        if subtype in SYSTEM_KEPT:
            content = record.get("content")
            if isinstance(content, str) and content.strip():
                stamp = parse_time(record.get("timestamp"))
                text = _REMINDER.sub("", content).strip()
                draft = Draft("system", [text], timestamp=stamp, external_id=record.get("uuid"))
                draft.flag(SYSTEM_KEPT[subtype])
                self._draft(build, draft, record)
        elif subtype not in SYSTEM_SKIPPED:
            self.drift.unknown_type(f"system:{subtype}", line.where)

    def _summary(self, record: dict[str, Any]) -> None:
        leaf, text = record.get("leafUuid"), record.get("summary")
        if isinstance(leaf, str) and isinstance(text, str) and text.strip():
            self.summaries.append([leaf, text])

    def _title(self, kind: str, record: dict[str, Any]) -> None:
        value = record.get("customTitle") if kind == "custom-title" else record.get("aiTitle")
        value = value or record.get("title")
        key = record.get("sessionId") if isinstance(record.get("sessionId"), str) else None
        build = self.build(key or self.path.stem) if not self.subagent or key else None
        if build is None or not value:
            return
        if kind == "custom-title" or build.session.meta.get("title_source") != "custom":
            build.title(value)
            build.session.meta["title_source"] = "custom" if kind == "custom-title" else "ai"

    def finish(self) -> None:
        self._resolve_summaries()
        if len(self.tool_names) > _MAX_TOOL_IDS:
            self.tool_names = dict(list(self.tool_names.items())[-_MAX_TOOL_IDS:])
        self.extra["tools"] = self.tool_names
        if self.last is not None:
            key, draft, checkpoint = self.last
            if draft.merge_key:  # an answer whose later blocks may not be written yet
                self.hold_open(key, checkpoint, emitted=not draft.is_empty())

    def _resolve_summaries(self) -> None:
        """Titles from `summary` records whose leaf is in this file; others wait (bounded)."""
        pending: list[list[str]] = []
        for leaf, text in self.summaries:
            if leaf in self.seen:
                for build in self.builds.values():
                    if not build.session.title and not build.session.is_sidechain:
                        build.title(text)
            else:
                pending.append([leaf, text])
        self.extra["titles"] = pending[-_MAX_PENDING_TITLES:]


def classify_user_text(text: str) -> tuple[str, str, list[str]]:
    """Role, cleaned text and flags of a user record's text: tagged system text is not typed.

    `<system-reminder>` blocks are cut out; text that is only command output becomes a
    `system` message; a slash command becomes `/name args`.
    """
    if "<" not in text:
        return "user", text.strip(), []  # no tags at all: the common case, no regex needed
    clean = _REMINDER.sub("", text).strip()
    if not clean:
        return "system", text.strip(), ["injected"]
    tag = _OUTPUT_TAG.match(clean)
    if tag:
        name = tag.group(1)
        inner = clean.replace(f"<{name}>", "").replace(f"</{name}>", "").strip()
        return "system", inner, ["command_output"]
    command = _COMMAND.search(clean)
    if command:
        args = _COMMAND_ARGS.search(clean)
        typed = f"{command.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
        return "user", typed, ["command"]
    bash = _BASH_INPUT.match(clean)
    if bash:
        return "user", f"! {bash.group(1).strip()}", ["command"]
    return "user", clean, []
