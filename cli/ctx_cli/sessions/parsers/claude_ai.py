"""claude.ai data export: the ZIP, or its `conversations.json`, streamed one conversation at a
time. `chat_messages` is already the current branch, in order.

Kept: human and assistant text (content blocks when present, else the flattened `text`),
attachments' names and extracted text, tool calls as summaries and tool results (role `tool`,
bounded). Skipped: thinking blocks. The export records no model name and no project folder.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.exports import conversations, export_kind, refuse
from ctx_cli.sessions.model import Cursor, Drift, ReadResult
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    clip,
    kind_of,
    parse_time,
    stringify,
    tool_summary,
)
from ctx_cli.sessions.whole import Context, OnSession, read_whole

TOOL = "claude-ai"
MESSAGE_KEYS = {
    "uuid", "sender", "text", "content", "created_at", "updated_at", "attachments", "files",
    "index", "truncated", "stop_reason", "parent_message_uuid", "files_v2", "sync_sources",
}  # fmt: skip
BLOCKS_SKIPPED = {"thinking", "redacted_thinking", "token_budget", "image", "flag"}


def detect(path: Path) -> bool:
    return export_kind(path) == "claude-ai"


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Exports are downloaded by hand: nothing to find; pass the file explicitly."""
    return []


def read(
    path: Path, cursor: Cursor | None = None, on_session: OnSession | None = None
) -> ReadResult:
    """The export's new conversations; with `on_session`, handed over one by one instead."""
    return read_whole(path, cursor, TOOL, _produce, on_session=on_session)


def _produce(ctx: Context) -> Iterator[SessionBuild]:
    if not detect(ctx.path):
        ctx.problems.append(str(refuse(ctx.path, "claude.ai")))
        return
    for conversation in conversations(ctx.path, ctx.drift):
        key = conversation.get("uuid")
        if not isinstance(key, str):
            ctx.drift.missing_field("conversation.uuid", "")
            continue
        version = str(conversation.get("updated_at") or "")
        if ctx.unchanged(key, version):
            continue
        try:
            yield _conversation(ctx, key, version, conversation)
        except Exception as exc:
            ctx.drift.error(f"conversation {key[:40]}: ", exc)


def _conversation(
    ctx: Context, key: str, version: str, conversation: dict[str, Any]
) -> SessionBuild:
    build = ctx.build(key, version)
    build.title(conversation.get("name") or conversation.get("summary"))
    build.touch(parse_time(conversation.get("created_at")))
    build.touch(parse_time(conversation.get("updated_at")))
    messages = conversation.get("chat_messages")
    if not isinstance(messages, list):
        ctx.drift.missing_field("conversation.chat_messages", "")
        messages = []
    for n, message in enumerate(messages):
        if isinstance(message, dict):
            _message(build, message, ctx.drift, f"message {n + 1}: ")
    return build


def _message(build: SessionBuild, message: dict[str, Any], drift: Drift, where: str) -> None:
    for key in message:
        if key not in MESSAGE_KEYS:
            drift.unknown_field(f"message.{key}", where)
    sender = kind_of(message.get("sender"))
    if sender not in ("human", "assistant"):
        drift.unknown_type(f"sender:{sender}", where)
        return
    role = "user" if sender == "human" else "assistant"
    stamp = parse_time(message.get("created_at"))
    ident = message.get("uuid") if isinstance(message.get("uuid"), str) else None
    draft = Draft(role, timestamp=stamp, external_id=ident)
    results: list[Draft] = []
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        for block in blocks:
            if isinstance(block, dict):
                _block(draft, results, block, stamp, drift, where)
    else:
        draft.parts.append(str(message.get("text") or ""))
    draft.parts.extend(_attachments(message))
    build.add(draft)
    for result in results:
        build.add(result)


def _block(
    draft: Draft, results: list[Draft], block: dict[str, Any], stamp: Any, drift: Drift,
    where: str,
) -> None:  # fmt: skip
    kind = kind_of(block.get("type"))
    if kind == "text":
        draft.parts.append(str(block.get("text") or ""))
    elif kind == "tool_use":
        draft.tool_calls.append(tool_summary(block.get("name"), block.get("input")))
    elif kind == "tool_result":
        name = clip(block.get("name"), 80) or "tool"
        result = Draft("tool", [f"[{name}] {stringify(block.get('content'))}"], timestamp=stamp)
        result.limit = MAX_TOOL_TEXT
        if block.get("is_error"):
            result.flag("error")
        results.append(result)
    elif kind not in BLOCKS_SKIPPED:
        drift.unknown_type(f"content:{kind}", where)


def _attachments(message: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for item in message.get("attachments") or []:
        if isinstance(item, dict):
            name = clip(item.get("file_name"), 200) or "attachment"
            body = item.get("extracted_content")
            out.append(f"[attachment: {name}]\n{body}" if isinstance(body, str) else f"[{name}]")
    for item in message.get("files") or []:
        if isinstance(item, dict) and item.get("file_name"):
            out.append(f"[file: {clip(item.get('file_name'), 200)}]")
    return out
