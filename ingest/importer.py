"""One import batch into sessions and messages, in the caller's transaction (ingest.services
runs it inside one). The windows follow in ingest.windowing.

What a batch may say about a session (the parsers' identity contract, cli/ctx_cli/sessions):
- a message is identified within its session by its index and `content_hash`: the same hash
  at the same index is unchanged; another hash at a known index replaces the message (the
  client flags a grown streamed answer `revised`; a second machine's copy is replaced too);
- a message without an index (the ContextOS shape) is appended, unless a message with its
  hash is already in the session;
- `replaces_earlier`: the batch carries the session's complete list, so stored messages whose
  index is not in it are removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ctx import bulk
from ingest.models import Message, Session, Source

PREVIEW_CHARS = 300


@dataclass
class Counts:
    new: int = 0
    revised: int = 0
    unchanged: int = 0
    removed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "new": self.new,
            "revised": self.revised,
            "unchanged": self.unchanged,
            "removed": self.removed,
        }


@dataclass
class Merge:
    counts: Counts = field(default_factory=Counts)
    changed_from: int | None = None  # the lowest index whose message was added, changed or removed

    def touch(self, index: int) -> None:
        if self.changed_from is None or index < self.changed_from:
            self.changed_from = index


def when(value: Any) -> datetime | None:
    """A batch's time: the ISO text ingest.batch wrote (datetime's own reader, in C, takes it;
    Django's regex reader was 4% of an import job, called twice a message), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:  # not what ingest.batch writes: the lenient reader decides
        return parse_datetime(value)


# --- the session row ---------------------------------------------------------------------------


def lock_session(scope_id: int, tool: str, external_id: str) -> tuple[Session, bool]:
    """The session row, locked for this transaction (created when new). Two batches of one
    session queue here instead of interleaving their message indexes."""
    found = (
        Session.objects.select_for_update()
        .filter(scope_id=scope_id, tool=tool, external_id=external_id)
        .first()
    )
    if found is not None:
        return found, False
    try:
        with transaction.atomic():  # a concurrent first import of the same session loses here
            return Session.objects.create(
                scope_id=scope_id, tool=tool, external_id=external_id
            ), True
    except IntegrityError:
        return lock_session(scope_id, tool, external_id)


def source_for(scope_id: int, tool: str, machine: str, raw: dict[str, Any] | None) -> Source | None:
    if not raw or not raw.get("path"):
        return None
    source, _ = Source.objects.update_or_create(
        scope_id=scope_id,
        tool=tool,
        machine=machine,
        path=raw["path"],
        defaults={"cursor": raw.get("cursor") or {}},
    )
    return source


def _earliest(a: datetime | None, b: datetime | None) -> datetime | None:
    return min(x for x in (a, b) if x is not None) if (a or b) else None


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    return max(x for x in (a, b) if x is not None) if (a or b) else None


def apply_fields(session: Session, raw: dict[str, Any], source: Source | None) -> None:
    """What the batch says about the session; a field it leaves empty keeps its value."""
    for name in ("title", "project_root", "git_branch", "git_commit", "parent_external_id"):
        if raw.get(name):
            setattr(session, name, raw[name])
    if raw.get("is_sidechain"):
        session.is_sidechain = True
    if raw.get("meta"):
        session.meta = {**session.meta, **raw["meta"]}
    stamps = [when(m.get("timestamp")) for m in raw.get("messages") or []]
    known = [s for s in stamps if s is not None]
    first = _earliest(when(raw.get("started_at")), min(known) if known else None)
    last = _latest(when(raw.get("last_activity_at")), max(known) if known else None)
    session.started_at = _earliest(session.started_at, first)
    session.last_activity_at = _latest(session.last_activity_at, last)
    if source is not None:
        session.source = source


# --- messages ----------------------------------------------------------------------------------


MESSAGE_FIELDS = (
    *("session", "scope", "index", "role", "text", "tool_calls", "timestamp", "external_id"),
    *("flags", "redacted", "content_hash"),
)


def _row(session: Session, index: int, raw: dict[str, Any]) -> dict[str, Any]:
    """A message row for ctx.bulk.insert_json_rows, its time as ISO text with an offset (a
    naive time is the server's time zone, as the ORM reads one; PostgreSQL's session zone is
    UTC)."""
    stamp = when(raw.get("timestamp"))
    if stamp is not None and timezone.is_naive(stamp):
        stamp = timezone.make_aware(stamp)
    return {
        "session": session.pk,
        "scope": session.scope_id,
        "index": index,
        "role": raw["role"],
        "text": raw.get("text") or "",
        "tool_calls": list(raw.get("tool_calls") or []),
        "timestamp": stamp.isoformat() if stamp is not None else None,
        "external_id": raw.get("external_id") or "",
        "flags": list(raw.get("flags") or []),
        "redacted": list(raw.get("redacted") or []),
        "content_hash": raw["content_hash"],
    }


def _indexed(
    incoming: list[dict[str, Any]], existing: dict[int, str]
) -> tuple[dict[int, dict[str, Any]], int]:
    """Each incoming message by its index (the last of a repeated index wins); messages
    without one are appended after the session's last, or dropped as already there when
    their hash is. Returns also how many were dropped so."""
    by_index: dict[int, dict[str, Any]] = {}
    hashes = set(existing.values())
    following = max(existing, default=-1) + 1
    dropped = 0
    for raw in incoming:
        index = raw.get("index")
        if index is None:
            if raw["content_hash"] in hashes:
                dropped += 1
                continue
            index, following = following, following + 1
            hashes.add(raw["content_hash"])
        by_index[int(index)] = raw
    return by_index, dropped


def merge_messages(session: Session, raw: dict[str, Any], *, created: bool) -> Merge:
    """Write the batch's messages of one session; say what changed from where."""
    incoming: list[dict[str, Any]] = raw.get("messages") or []
    replaces = bool(raw.get("replaces_earlier"))
    whole = replaces or any(m.get("index") is None for m in incoming)
    rows = Message.objects.filter(session=session)
    if not whole:
        rows = rows.filter(index__in=[int(m["index"]) for m in incoming])
    existing = {} if created else dict(rows.values_list("index", "content_hash"))
    by_index, dropped = _indexed(incoming, existing)
    merge = Merge()
    merge.counts.unchanged = dropped
    fresh: list[dict[str, Any]] = []
    stale: list[int] = []
    for index, message in sorted(by_index.items()):
        known = existing.get(index)
        if known == message["content_hash"]:
            merge.counts.unchanged += 1
            continue
        if known is None:
            merge.counts.new += 1
        else:
            merge.counts.revised += 1
            stale.append(index)
        merge.touch(index)
        fresh.append(_row(session, index, message))
    if replaces:
        gone = sorted(set(existing) - set(by_index))
        stale += gone
        merge.counts.removed = len(gone)
        for index in gone:
            merge.touch(index)
    if stale:
        Message.objects.filter(session=session, index__in=stale).delete()
    bulk.insert_json_rows(Message, MESSAGE_FIELDS, fresh)
    return merge


def refresh_summary(session: Session) -> None:
    """Message count and the last user prompt (what `recent_sessions` resumes from)."""
    session.message_count = Message.objects.filter(session=session).count()
    last = (
        Message.objects.filter(session=session, role="user")
        .exclude(text="")
        .exclude(flags__overlap=["injected", "command_output", "compact_summary"])
        .order_by("-index")
        .values_list("text", flat=True)
        .first()
    )
    session.preview = " ".join((last or "").split())[:PREVIEW_CHARS]
