"""The import request: one normalised shape (what `ctx sessions import` sends), and the
ContextOS shape `{platform, session_id, messages[]}` turned into it. Bounds are checked before
anything else is parsed: too many messages or too much text answer 413."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Annotated, Any, Self

from pydantic import BeforeValidator, Field

from ctx import knobs
from ctx import validation as v
from ctx.errors import TooLarge, ValidationFailed
from ctx.ops.inputs import UNKNOWN_FIELDS, Flag, Input, IntParam, OneOf, ScopeName, Text, When
from ingest.models import ROLES, TOOL_RE

MAX_SESSIONS = 500
MAX_MESSAGE_CHARS = 100_000  # the parsers cut longer messages with a marker
MAX_META_BYTES = 4_096
MAX_CURSOR_BYTES = 4_096
_TOOL = re.compile(TOOL_RE)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _tool(value: Any) -> str:
    if not isinstance(value, str) or not _TOOL.match(value.strip().lower()):
        raise ValidationFailed(
            "'tool' must be 1-32 characters of a-z, 0-9, '.', '_', '-'.", details={"field": "tool"}
        )
    return value.strip().lower()


def _message_text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationFailed("'text' must be a string.", details={"field": "text"})
    if len(value) > MAX_MESSAGE_CHARS:
        raise TooLarge(f"A message is longer than {MAX_MESSAGE_CHARS} characters.")
    return value


def _strings(name: str, items: int, length: int) -> BeforeValidator:
    return BeforeValidator(
        lambda value: v.string_list({name: value}, name, max_items=items, max_len=length)
    )


def small_object(name: str, limit: int) -> BeforeValidator:
    def check(value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict) or len(json.dumps(value, default=str)) > limit:
            raise ValidationFailed(
                f"'{name}' must be an object of at most {limit} bytes.", details={"field": name}
            )
        return value

    return BeforeValidator(check)


def _hash(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not _HEX64.match(value):
        raise ValidationFailed(
            "'content_hash' must be 64 lower-case hex characters.",
            details={"field": "content_hash"},
        )
    return value


class MessageIn(Input):
    index: Annotated[int | None, IntParam(0, 100_000_000)] = None
    role: Annotated[str, OneOf(ROLES)]
    text: Annotated[str, BeforeValidator(_message_text), Field(max_length=MAX_MESSAGE_CHARS)] = ""
    timestamp: When = None
    external_id: Annotated[str | None, Text(200, required=False)] = None
    tool_calls: Annotated[list[str], _strings("tool_calls", 200, 300)] = []
    flags: Annotated[list[str], _strings("flags", 20, 32)] = []
    content_hash: Annotated[str | None, BeforeValidator(_hash)] = None

    def digest(self) -> str:
        """The client's hash, or the same function of the message (cli/ctx_cli/sessions)."""
        if self.content_hash:
            return self.content_hash
        stamp = self.timestamp.isoformat() if self.timestamp is not None else ""
        payload = f"{self.role}\x1f{self.text}\x1f{stamp}\x1f" + "\x1e".join(self.tool_calls)
        return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


class SourceIn(Input):
    path: Annotated[str, Text(1000, description="The file the sessions were read from.")]
    cursor: Annotated[dict[str, Any], small_object("cursor", MAX_CURSOR_BYTES)] = {}


Opt64 = Annotated[str | None, Text(64, required=False)]
Opt200 = Annotated[str | None, Text(200, required=False)]
Opt500 = Annotated[str | None, Text(500, required=False)]
Opt1000 = Annotated[str | None, Text(1000, required=False)]


ToolName = Annotated[
    str,
    BeforeValidator(_tool),
    Field(max_length=32, description="The AI tool (claude-code, codex, …)."),
]


class SessionIn(Input):
    tool: ToolName
    external_id: Annotated[str, Text(200)]
    title: Opt500 = None
    project_root: Opt1000 = None
    git_branch: Opt200 = None
    git_commit: Opt64 = None
    started_at: When = None
    last_activity_at: When = None
    parent_external_id: Opt200 = None
    is_sidechain: Flag = False
    replaces_earlier: Flag = False
    meta: Annotated[dict[str, Any], small_object("meta", MAX_META_BYTES)] = {}
    source: SourceIn | None = None
    messages: list[MessageIn] = []


def _bounded(value: Any) -> Any:
    """Count before parsing: a batch over the limits is refused whole (413), unread."""
    if not isinstance(value, list) or not value:
        raise ValidationFailed(
            "'sessions' must be a non-empty list.", details={"field": "sessions"}
        )
    if len(value) > MAX_SESSIONS:
        raise TooLarge(f"'sessions' has more than {MAX_SESSIONS} items.")
    messages = [m for s in value if isinstance(s, dict) for m in (s.get("messages") or [])]
    limit = int(knobs.value("CTX_SESSION_IMPORT_MAX_MESSAGES"))
    if len(messages) > limit:
        raise TooLarge(f"The batch has {len(messages)} messages; the limit is {limit}.")
    size = sum(len(str(m.get("text") or "").encode()) for m in messages if isinstance(m, dict))
    limit = int(knobs.value("CTX_SESSION_IMPORT_MAX_BYTES"))
    if size > limit:
        raise TooLarge(f"The batch has {size} bytes of text; the limit is {limit} bytes.")
    return value


class ImportInput(Input):
    sessions: Annotated[list[SessionIn], BeforeValidator(_bounded)]
    scope: ScopeName = None
    machine: Annotated[str | None, Text(200, required=False)] = None
    restore_deleted: Annotated[
        Flag, Field(description="Import into sessions deleted before (else they are skipped).")
    ] = False

    @classmethod
    def parse(cls, data: Any) -> Self:
        data = v.require_object(data)
        if "sessions" not in data and ("platform" in data or "session_id" in data):
            data = contextos(data)
        return super().parse(data)


CONTEXTOS_FIELDS = frozenset(
    {"platform", "session_id", "messages", "title", "project", "cwd", "scope", "machine"}
    | {"restore_deleted"}
)
CONTEXTOS_MESSAGE_FIELDS = frozenset({"role", "content", "text", "timestamp"})


def _known(raw: dict[str, Any], known: frozenset[str], where: str = "") -> None:
    """The translation must not drop what it does not read: the same policy as every input
    (ctx.ops.inputs.UNKNOWN_FIELDS), the unknown field named."""
    if UNKNOWN_FIELDS != "forbid":
        return
    unknown = sorted(k for k in raw if k not in known)
    if unknown:
        name = f"{where}{unknown[0]}"
        raise ValidationFailed(f"Unknown field '{name}'.", details={"field": name})


def contextos(data: dict[str, Any]) -> dict[str, Any]:
    """`{platform, session_id, messages: [{role, content, timestamp}], title?, project?}` as one
    session of the normalised shape; messages carry no index, so they are appended."""
    _known(data, CONTEXTOS_FIELDS)
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ValidationFailed("'messages' must be a list.", details={"field": "messages"})
    session = {
        "tool": data.get("platform"),
        "external_id": data.get("session_id"),
        "title": data.get("title"),
        "project_root": data.get("project") or data.get("cwd"),
        "messages": [_contextos_message(m, n) for n, m in enumerate(messages)],
    }
    rest: dict[str, Any] = {
        k: data[k] for k in ("scope", "machine", "restore_deleted") if k in data
    }
    return {"sessions": [session], **rest}


def _contextos_message(raw: Any, n: int) -> Any:
    if not isinstance(raw, dict):
        return raw  # the model names the error
    _known(raw, CONTEXTOS_MESSAGE_FIELDS, f"messages.{n}.")
    text = raw.get("content", raw.get("text"))
    if isinstance(text, list):  # content blocks: their text parts
        text = "\n".join(str(b.get("text", "")) for b in text if isinstance(b, dict))
    out = {"role": raw.get("role"), "text": text, "timestamp": raw.get("timestamp")}
    return {k: val for k, val in out.items() if val is not None}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def as_batch(data: ImportInput) -> dict[str, Any]:
    """The parsed request as the JSON the job keeps (scrubbed by ingest.services first)."""
    return {
        "machine": data.machine or "",
        "restore_deleted": data.restore_deleted,
        "sessions": [_session(s) for s in data.sessions],
    }


def _session(s: SessionIn) -> dict[str, Any]:
    return {
        "tool": s.tool,
        "external_id": s.external_id,
        "title": s.title or "",
        "project_root": s.project_root or "",
        "git_branch": s.git_branch or "",
        "git_commit": s.git_commit or "",
        "started_at": _iso(s.started_at),
        "last_activity_at": _iso(s.last_activity_at),
        "parent_external_id": s.parent_external_id or "",
        "is_sidechain": s.is_sidechain,
        "replaces_earlier": s.replaces_earlier,
        "meta": dict(s.meta),
        "source": {"path": s.source.path, "cursor": dict(s.source.cursor)} if s.source else None,
        "messages": [_message(m) for m in s.messages],
    }


def _message(m: MessageIn) -> dict[str, Any]:
    return {
        "index": m.index,
        "role": m.role,
        "text": m.text,
        "timestamp": _iso(m.timestamp),
        "external_id": m.external_id or "",
        "tool_calls": list(m.tool_calls),
        "flags": list(m.flags),
        "content_hash": m.digest(),
    }
