"""Session builders and per-session marks: what parsers fill, and how only new messages leave.

A parser turns records into `Draft`s inside a `SessionBuild`; `emit()` turns the drafts into
bounded `Message`s and compares them with the session's `Mark` from the cursor, so that a read
returns only the messages the previous read did not, whatever the file format:

- a mark holds the number of messages already returned and a running digest of their content
  hashes (`chain`), plus the digest before the last one (`prev`) and the last hash;
- if the new list starts with exactly the returned ones, only the rest is new;
- if all but the last match and the last differs, that last one grew (a streamed answer read
  mid-write): it is returned again, flagged `revised`, with its index;
- otherwise the tool rewrote the session (a rewind, a branch switch): the whole list is
  returned and the session is marked `replaces_earlier`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ctx_cli.sessions.model import Message, Session
from ctx_cli.sessions.text import (
    MAX_TEXT,
    MAX_TITLE,
    MAX_TOOL_CALLS,
    bound,
    clip,
    join_text,
    parse_time,
)

_META_FIELDS = ("project_root", "git_branch", "git_commit", "title", "parent_external_id")


def chain_step(chain: str, content_hash: str) -> str:
    return hashlib.sha256(f"{chain}:{content_hash}".encode()).hexdigest()[:32]


@dataclass
class Mark:
    n: int = 0
    chain: str = ""
    prev: str = ""
    last: str = ""
    version: str = ""  # a tool's change token (update time): equal means the session is unchanged
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> Mark:
        if not isinstance(data, dict):
            return cls()
        return cls(
            n=int(data.get("n", 0)),
            chain=str(data.get("c", "")),
            prev=str(data.get("p", "")),
            last=str(data.get("l", "")),
            version=str(data.get("v", "")),
            meta=dict(data.get("m") or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"n": self.n, "c": self.chain, "p": self.prev, "l": self.last}
        if self.version:
            data["v"] = self.version
        if self.meta:
            data["m"] = self.meta
        return data

    def advance(self, message: Message) -> None:
        self.prev = self.chain
        self.chain = chain_step(self.chain, message.content_hash)
        self.last = message.content_hash
        self.n = message.index + 1


@dataclass
class Draft:
    role: str
    parts: list[str] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)
    timestamp: datetime | None = None
    external_id: str | None = None
    flags: list[str] = field(default_factory=list)
    limit: int = MAX_TEXT
    merge_key: str | None = None  # later records with the same key add to this draft
    checkpoint: Any = None  # JSONL: the read position before this draft's first line

    def flag(self, name: str) -> None:
        if name not in self.flags:
            self.flags.append(name)

    def is_empty(self) -> bool:
        return not any(p.strip() for p in self.parts) and not self.tool_calls

    def to_message(self, index: int) -> Message:
        text, cut = bound(join_text(self.parts), self.limit)
        flags = list(self.flags)
        if cut:
            flags.append("truncated")
        calls = self.tool_calls[:MAX_TOOL_CALLS]
        if len(self.tool_calls) > MAX_TOOL_CALLS:
            calls.append(f"… {len(self.tool_calls) - MAX_TOOL_CALLS} more tool calls")
        return Message(
            index=index,
            role=self.role,
            text=text,
            timestamp=self.timestamp,
            external_id=self.external_id,
            tool_calls=calls,
            flags=flags,
        )


class SessionBuild:
    """One session's metadata and drafts during a read; restored from and saved to its mark."""

    def __init__(self, tool: str, key: str, mark: Mark | None = None) -> None:
        self.key = key
        self.mark = mark or Mark()
        self.session = Session(tool=tool, external_id=key)
        self.drafts: list[Draft] = []
        self._restore(self.mark.meta)

    # -- metadata ------------------------------------------------------------------------

    def _restore(self, meta: dict[str, Any]) -> None:
        s = self.session
        for name in _META_FIELDS:
            if isinstance(meta.get(name), str):
                setattr(s, name, meta[name])
        s.started_at = parse_time(meta.get("started_at"))
        s.last_activity_at = parse_time(meta.get("last_activity_at"))
        s.is_sidechain = bool(meta.get("is_sidechain"))
        s.meta = {k: str(v) for k, v in (meta.get("meta") or {}).items()}

    def saved_meta(self) -> dict[str, Any]:
        s = self.session
        meta: dict[str, Any] = {n: getattr(s, n) for n in _META_FIELDS if getattr(s, n)}
        for name in ("started_at", "last_activity_at"):
            value = getattr(s, name)
            if value is not None:
                meta[name] = value.isoformat()
        if s.is_sidechain:
            meta["is_sidechain"] = True
        if s.meta:
            meta["meta"] = dict(s.meta)
        return meta

    def project(self, cwd: Any) -> None:
        """The first recorded working directory is the session's project root."""
        if not self.session.project_root:
            self.session.project_root = clip(cwd, 4096)

    def branch(self, value: Any) -> None:
        if value:
            self.session.git_branch = clip(value) or self.session.git_branch

    def commit(self, value: Any) -> None:
        if value:
            self.session.git_commit = clip(value, 80) or self.session.git_commit

    def title(self, value: Any) -> None:
        text = clip(value, MAX_TITLE)
        if text:
            self.session.title = text

    def note(self, key: str, value: Any) -> None:
        text = clip(value)
        if text:
            self.session.meta[key] = text

    def touch(self, stamp: datetime | None) -> None:
        if stamp is None:
            return
        s = self.session
        if s.started_at is None or stamp < s.started_at:
            s.started_at = stamp
        if s.last_activity_at is None or stamp > s.last_activity_at:
            s.last_activity_at = stamp

    # -- drafts --------------------------------------------------------------------------

    def add(self, draft: Draft) -> Draft:
        self.touch(draft.timestamp)
        self.drafts.append(draft)
        return draft

    def messages(self, base: int) -> list[Message]:
        kept = [d for d in self.drafts if not d.is_empty()]
        return [d.to_message(base + i) for i, d in enumerate(kept)]

    def last_draft(self) -> Draft | None:
        kept = [d for d in self.drafts if not d.is_empty()]
        return kept[-1] if kept else None


def emit_full(build: SessionBuild) -> Session | None:
    """Compare the complete message list with the mark; the session with only what is new."""
    messages = build.messages(0)
    mark = build.mark
    before = dict(mark.meta)
    new, replaced = _new_part(messages, mark)
    if replaced:
        build.mark = Mark(version=mark.version)
    for message in new:
        build.mark.advance(message)
    return _finish(build, new, replaced, before)


def _new_part(messages: list[Message], mark: Mark) -> tuple[list[Message], bool]:
    if mark.n == 0:
        return messages, False
    chain = ""
    prefix: list[str] = [""]
    for message in messages[: mark.n]:
        chain = chain_step(chain, message.content_hash)
        prefix.append(chain)
    if len(messages) >= mark.n and prefix[mark.n] == mark.chain:
        return messages[mark.n :], False
    if len(messages) >= mark.n and prefix[mark.n - 1] == mark.prev:
        _revise(messages[mark.n - 1])
        mark.chain, mark.n = mark.prev, mark.n - 1
        return messages[mark.n :], False
    return messages, True


def emit_tail(build: SessionBuild, base: int, reopened: bool) -> Session | None:
    """Messages read after the cursor's offset, numbered from `base`; a reopened first
    message (the cursor's last, read again because it may have grown) is dropped when unchanged.
    """
    messages = build.messages(base)
    mark = build.mark
    before = dict(mark.meta)
    if reopened and messages and messages[0].index == mark.n - 1:
        first = messages[0]
        if first.content_hash == mark.last:
            messages = messages[1:]
        else:
            _revise(first)
            mark.chain, mark.n = mark.prev, mark.n - 1
    for message in messages:
        mark.advance(message)
    return _finish(build, messages, False, before)


def _revise(message: Message) -> None:
    if "revised" not in message.flags:
        message.flags.append("revised")


def _finish(
    build: SessionBuild, new: list[Message], replaced: bool, before: dict[str, Any]
) -> Session | None:
    build.mark.meta = build.saved_meta()
    if not new and not replaced and build.mark.meta == before:
        return None
    build.session.messages = new
    build.session.replaces_earlier = replaced
    return build.session
