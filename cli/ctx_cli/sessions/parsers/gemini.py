"""Gemini CLI: `~/.gemini/tmp/<project-id>/chats/session-*.json` (legacy, one document) and
`.jsonl` (current: metadata line, message lines, `$set` / `$rewindTo` control lines), plus
subagent chats in `chats/<parentSessionId>/<sessionId>.jsonl`.

Kept: `user` messages, `gemini` answers with their tool calls (summaries) and tool results
(role `tool`, bounded). Skipped: `info`, `error`, `warning` messages and thoughts. The project
root comes from the project folder's `.project_root` marker or the registry
`~/.gemini/projects.json` (a legacy folder named by the sha256 of the path is matched against
the registry's paths); it is never guessed from a folder name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.files import FileProblem, Line, first_records, head_text, load_json
from ctx_cli.sessions.jsonl import Handler, Restart, read_jsonl
from ctx_cli.sessions.model import Cursor, Drift, ReadResult
from ctx_cli.sessions.text import (
    MAX_TOOL_TEXT,
    as_list,
    clip,
    kind_of,
    parse_time,
    str_or,
    stringify,
    tool_summary,
)
from ctx_cli.sessions.whole import Context, read_whole

TOOL = "gemini"

META_KEYS = {
    "sessionId", "projectHash", "startTime", "lastUpdated", "kind", "directories", "summary",
    "messages", "memoryScratchpad",
}  # fmt: skip
MESSAGE_KEYS = {
    "id", "timestamp", "type", "content", "displayContent", "toolCalls", "thoughts", "tokens",
    "model",
}  # fmt: skip
SKIPPED_TYPES = {"info", "error", "warning"}


def detect(path: Path) -> bool:
    if path.suffix == ".jsonl":
        records = first_records(path, 1)
        return (
            bool(records)
            and "sessionId" in records[0]
            and ("projectHash" in records[0] or "startTime" in records[0])
        )
    if path.suffix != ".json":
        return False
    head = head_text(path)
    return '"projectHash"' in head or ('"sessionId"' in head and '"messages"' in head)


def locate(home: Path, platform: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Chat files under `$GEMINI_CLI_HOME/.gemini` (if set) or `~/.gemini`, every platform."""
    base = Path(env["GEMINI_CLI_HOME"]) if env and env.get("GEMINI_CLI_HOME") else home
    tmp = base / ".gemini" / "tmp"
    if not tmp.is_dir():
        return []
    found: set[Path] = set()
    for pattern in ("*/chats/session-*.json", "*/chats/session-*.jsonl", "*/chats/*/*.jsonl"):
        found.update(tmp.glob(pattern))
    return sorted(found)


def read(path: Path, cursor: Cursor | None = None) -> ReadResult:
    if path.suffix == ".jsonl":
        return read_jsonl(path, cursor, GeminiHandler)
    return read_whole(path, cursor, TOOL, lambda ctx: _read_document(ctx))


# --- project attribution ---------------------------------------------------------------------


def project_dir(path: Path) -> Path:
    """`tmp/<project-id>` for `chats/x.json(l)` and for `chats/<parent>/x.jsonl`."""
    chats = path.parent if path.parent.name == "chats" else path.parent.parent
    return chats.parent


def project_root(path: Path, project_hash: Any) -> str | None:
    folder = project_dir(path)
    marker = folder / ".project_root"
    try:
        recorded = marker.read_text(encoding="utf-8").strip()
        if recorded:
            return recorded
    except OSError:
        pass
    registry = _registry(folder.parent.parent / "projects.json")
    for root, slug in registry.items():
        if slug == folder.name:
            return root
    for root in registry:
        digest = hashlib.sha256(root.encode("utf-8")).hexdigest()
        if digest in (folder.name, project_hash):
            return root
    return None


def _registry(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {k: v for k, v in projects.items() if isinstance(k, str) and isinstance(v, str)}


# --- messages (both containers) -------------------------------------------------------------


def apply_meta(build: SessionBuild, meta: dict[str, Any], path: Path) -> None:
    build.touch(parse_time(meta.get("startTime")))
    build.touch(parse_time(meta.get("lastUpdated")))
    if not build.session.project_root:
        build.project(project_root(path, meta.get("projectHash")))
    if meta.get("summary"):
        build.title(meta.get("summary"))
    if meta.get("kind") == "subagent" or path.parent.name != "chats":
        build.session.is_sidechain = True
        if path.parent.name != "chats":
            build.session.parent_external_id = path.parent.name


def message_drafts(record: dict[str, Any], drift: Drift, where: str) -> list[Draft]:
    for key in record:
        if key not in MESSAGE_KEYS:
            drift.unknown_field(f"message.{key}", where)
    kind = kind_of(record.get("type"))
    stamp = parse_time(record.get("timestamp"))
    ident = record.get("id") if isinstance(record.get("id"), str) else None
    if kind == "user":
        return _user(record, stamp, ident)
    if kind == "gemini":
        return _answer(record, stamp, ident)
    if kind not in SKIPPED_TYPES:
        drift.unknown_type(f"message:{kind}", where)
    return []


def _user(record: dict[str, Any], stamp: Any, ident: str | None) -> list[Draft]:
    text, _calls, results = _parts(record.get("content"))
    drafts = [Draft("user", [text], timestamp=stamp, external_id=ident)]
    for i, result in enumerate(results):
        drafts.append(_tool(result, stamp, f"{ident}:r{i}"))
    return drafts


def _answer(record: dict[str, Any], stamp: Any, ident: str | None) -> list[Draft]:
    text, calls, _results = _parts(record.get("content"))  # results: in toolCalls below
    draft = Draft("assistant", [text], calls, timestamp=stamp, external_id=ident)
    drafts = [draft]
    tool_calls = as_list(record.get("toolCalls"))
    for call in tool_calls:
        if not isinstance(call, dict):
            continue
        name = call.get("displayName") or call.get("name")
        draft.tool_calls.append(tool_summary(call.get("name") or name, call.get("args")))
        body = _result_text(call.get("result")) or stringify(call.get("resultDisplay"))
        if body:
            tool_stamp = parse_time(call.get("timestamp")) or stamp
            drafts.append(_tool(f"[{call.get('name') or 'tool'}] {body}", tool_stamp,
                                f"{ident}:{call.get('id')}"))  # fmt: skip
            if call.get("status") == "error":
                drafts[-1].flag("error")
    return drafts


def _result_text(result: Any) -> str:
    """The text of a tool result: `functionResponse.response` parts (output or error)."""
    if not isinstance(result, list):
        return stringify(result)
    texts: list[str] = []
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                body = body.get("output", body.get("error", body))
            texts.append(stringify(body))
        else:
            texts.append(stringify(part))
    return "\n".join(t for t in texts if t)


def _tool(text: str, stamp: Any, ident: str) -> Draft:
    draft = Draft("tool", [text], timestamp=stamp, external_id=ident)
    draft.limit = MAX_TOOL_TEXT
    return draft


def _parts(content: Any) -> tuple[str, list[str], list[str]]:
    """Text, function-call summaries and function-response texts of `content`."""
    if isinstance(content, str):
        return content, [], []
    texts: list[str] = []
    calls: list[str] = []
    results: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        elif isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            calls.append(tool_summary(call.get("name"), call.get("args")))
        elif isinstance(part.get("functionResponse"), dict):
            response = part["functionResponse"]
            name = clip(response.get("name"), 80) or "tool"
            results.append(f"[{name}] {_result_text([part])}")
    return "\n\n".join(texts), calls, results


# --- legacy .json -----------------------------------------------------------------------------


def _read_document(ctx: Context) -> Iterator[SessionBuild]:
    data = load_json(ctx.path, ctx.drift)
    if isinstance(data, list):
        data = {"messages": data}  # the oldest layout: a bare array of messages
    if not isinstance(data, dict):
        raise FileProblem(f"{ctx.path} is not a Gemini CLI chat (a JSON {type(data).__name__})")
    if isinstance(data.get("sessions"), list):
        yield from _turn_sessions(ctx, data["sessions"])
        return
    for key in data:
        if key not in META_KEYS:
            ctx.drift.unknown_field(f"session.{key}", "")
    key = str_or(data.get("sessionId"), ctx.path.stem)
    build = ctx.build(key, str(data.get("lastUpdated") or ""))
    apply_meta(build, data, ctx.path)
    messages = data.get("messages")
    if not isinstance(messages, list):
        ctx.drift.missing_field("session.messages", "")
        messages = []
    for i, record in enumerate(messages):
        if isinstance(record, dict):
            for draft in message_drafts(record, ctx.drift, f"message {i + 1}: "):
                build.add(draft)
    yield build


def _turn_sessions(ctx: Context, sessions: list[Any]) -> Iterator[SessionBuild]:
    """`{sessions: [{turns: [{prompt, response}]}]}`: an early layout, no ids or times."""
    for n, item in enumerate(sessions):
        if not isinstance(item, dict):
            continue
        build = ctx.build(str(item.get("id") or f"{ctx.path.stem}#{n}"))
        for turn in item.get("turns") or []:
            if isinstance(turn, dict):
                build.add(Draft("user", [stringify(turn.get("prompt"), 10**9)]))
                build.add(Draft("assistant", [stringify(turn.get("response"), 10**9)]))
        yield build


# --- current .jsonl ---------------------------------------------------------------------------


class GeminiHandler(Handler):
    tool = TOOL

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.key: str = self.extra.get("session") or self.path.stem

    def record(self, record: dict[str, Any], line: Line) -> None:
        if "$set" in record:
            update = record["$set"] if isinstance(record["$set"], dict) else {}
            if update.get("summary"):
                self.build(self.key).title(update["summary"])
        elif "$rewindTo" in record:
            self._rewind(str(record["$rewindTo"]), line)
        elif "type" in record:
            build = self.build(self.key)
            for draft in message_drafts(record, self.drift, line.where):
                build.add(draft)
        elif "sessionId" in record:
            self._meta(record, line)
        else:
            self.drift.unknown_type(",".join(sorted(record)[:3]) or "empty", line.where)

    def _meta(self, record: dict[str, Any], line: Line) -> None:
        for key in record:
            if key not in META_KEYS:
                self.drift.unknown_field(f"metadata.{key}", line.where)
        if self.full and not self.builds and isinstance(record["sessionId"], str):
            self.key = record["sessionId"]
        apply_meta(self.build(self.key), record, self.path)

    def _rewind(self, target: str, line: Line) -> None:
        """`$rewindTo`: that message and everything after it are gone."""
        build = self.build(self.key)
        for i, draft in enumerate(build.drafts):
            if draft.external_id == target:
                del build.drafts[i:]
                return
        if not self.full:
            raise Restart  # the message was returned by an earlier read: re-read everything
        self.drift.example(f"{line.where}$rewindTo names a message not in the file")

    def finish(self) -> None:
        self.extra["session"] = self.key
