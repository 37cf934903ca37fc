"""ChatGPT data export: the ZIP, or its `conversations.json`, streamed one conversation at a
time (a multi-hundred-megabyte export is never held whole).

Each conversation's message tree is walked from `current_node` up to the root: the branch
the user last saw, not the abandoned regenerations and edits. Skipped: hidden nodes (`weight`
0, `is_visually_hidden_from_conversation`), system messages, custom instructions
(`is_user_system_message`, `user_editable_context`), reasoning (`thoughts`,
`reasoning_recap`) and empty nodes. Code sent to a tool becomes a tool-call summary, tool
output a `tool` message (bounded). A conversation whose `update_time` did not change since the
last read is not rebuilt.
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
    as_dict,
    clip,
    kind_of,
    parse_time,
    tool_summary,
)
from ctx_cli.sessions.whole import Context, OnSession, read_whole

TOOL = "chatgpt"
TEXT_TYPES = {"text", "multimodal_text"}
TOOL_TYPES = {"execution_output", "tether_browsing_display", "tether_quote", "system_error"}
SKIPPED_TYPES = {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}


def detect(path: Path) -> bool:
    return export_kind(path) == "chatgpt"


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
        ctx.problems.append(str(refuse(ctx.path, "ChatGPT")))
        return
    for conversation in conversations(ctx.path, ctx.drift):
        key = conversation.get("id") or conversation.get("conversation_id")
        if not isinstance(key, str):
            ctx.drift.missing_field("conversation.id", "")
            continue
        version = str(conversation.get("update_time") or "")
        if ctx.unchanged(key, version):
            continue
        try:
            yield _conversation(ctx, key, version, conversation)
        except Exception as exc:
            ctx.drift.error(f"conversation {key[:40]}: ", exc)


def _conversation(ctx: Context, key: str, version: str, data: dict[str, Any]) -> SessionBuild:
    build = ctx.build(key, version)
    build.title(data.get("title"))
    build.touch(parse_time(data.get("create_time")))
    build.touch(parse_time(data.get("update_time")))
    build.note("model", data.get("default_model_slug"))
    mapping = data.get("mapping")
    if not isinstance(mapping, dict):
        ctx.drift.missing_field("conversation.mapping", "")
        return build
    for node in current_branch(mapping, data.get("current_node")):
        message = node.get("message")
        if isinstance(message, dict):
            _message(build, message, ctx.drift)
    return build


def current_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root down to `current_node` (the last leaf when it is missing)."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        current = leaves[-1] if leaves else None
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)  # a cycle in a damaged export must not loop forever
        node = mapping[current]
        if not isinstance(node, dict):
            break
        path.append(node)
        current = node.get("parent")
    path.reverse()
    return path


def _message(build: SessionBuild, message: dict[str, Any], drift: Drift) -> None:
    author = as_dict(message.get("author"))
    role = kind_of(author.get("role"))
    meta = as_dict(message.get("metadata"))
    if _hidden(message, meta) or role == "system":
        return
    content = as_dict(message.get("content"))
    kind = kind_of(content.get("content_type"))
    stamp = parse_time(message.get("create_time"))
    ident = message.get("id") if isinstance(message.get("id"), str) else None
    if meta.get("model_slug"):
        build.note("model", meta["model_slug"])
    if kind in SKIPPED_TYPES:
        return
    if kind == "code" or (role == "assistant" and message.get("recipient") not in (None, "all")):
        call = tool_summary(message.get("recipient") or "tool", _text(content))
        build.add(Draft("assistant", tool_calls=[call], timestamp=stamp, external_id=ident))
    elif role == "tool" or kind in TOOL_TYPES:
        _tool(build, author, content, stamp, ident)
    elif role in ("user", "assistant"):
        if kind not in TEXT_TYPES:
            drift.unknown_type(f"content:{kind}", "")
        build.add(Draft(role, [_text(content)], timestamp=stamp, external_id=ident))
    else:
        drift.unknown_type(f"author:{role}", "")


def _hidden(message: dict[str, Any], meta: dict[str, Any]) -> bool:
    return (
        message.get("weight") == 0
        or bool(meta.get("is_visually_hidden_from_conversation"))
        or bool(meta.get("is_user_system_message"))
    )


def _tool(
    build: SessionBuild, author: dict[str, Any], content: dict[str, Any], stamp: Any, ident: Any
) -> None:
    name = clip(author.get("name"), 80) or "tool"
    draft = Draft("tool", [f"[{name}] {_text(content)}"], timestamp=stamp, external_id=ident)
    draft.limit = MAX_TOOL_TEXT
    if content.get("content_type") == "system_error":
        draft.flag("error")
    build.add(draft)


def _text(content: dict[str, Any]) -> str:
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n\n".join(_part(p) for p in parts if _part(p))
    pieces = [content.get(k) for k in ("title", "url", "text", "result", "summary")]
    return "\n".join(p for p in pieces if isinstance(p, str) and p)


def _part(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = str(part.get("content_type") or "")
        if "image" in kind:
            return "[image]"
        if "audio" in kind:
            return str(part.get("text") or "[audio]")
        if isinstance(part.get("text"), str):
            return part["text"]
    return ""
