"""Writes of the hook event log: recording a batch of a session's events, the per-session cap,
and the event blocks that make them searchable.

A batch goes into the session found or created by (scope, tool, external id), the same row an
import of that conversation writes into, locked for the transaction. An event equal (kind,
text, data) to one of the session's last five is skipped. Past CTX_SESSION_EVENTS_MAX events
the lowest priority, oldest first, are dropped and counted on the session.

**Event blocks.** Events are written into `transcript` blocks of CTX_SESSION_EVENTS_PER_BLOCK
events each (category `sessions/<tool>/events`, one title per page of the session), upserted.
A full page is written once, when it fills. The open (last) page is written when it is new,
when its block is older than CTX_SESSION_EVENTS_FLUSH_SECONDS, when the caller asks for a
snapshot (PreCompact) and when the batch ends the session (a `session` event with
`data.ended`, SessionEnd: no later event would bring the flush): so each block is embedded
about once, not once per event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from ctx import knobs
from ctx import services as block_services
from ctx.models import Block, BlockType
from ctx.principal import Principal
from ctx.services import BlockInput
from ingest import events as ev
from ingest import importer, scrub
from ingest.models import Session, SessionEvent

PREVIEW_CHARS = importer.PREVIEW_CHARS


@dataclass(frozen=True)
class NewEvent:
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    at: datetime | None = None


@dataclass
class Recorded:
    session: Session
    stored: int = 0
    duplicates: int = 0
    dropped: int = 0  # by the cap, in this batch
    skipped: str = ""  # why nothing was recorded (a deleted session)
    blocks: int = 0  # event blocks written


def category(tool: str) -> str:
    return f"sessions/{tool}/events"


def _clean(event: NewEvent) -> NewEvent:
    """Credentials out of the text and every string of the data, before anything is kept."""
    text, _ = scrub.text(event.text)
    return NewEvent(event.kind, text, _clean_value(event.data), event.at)


def _clean_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub.text(value)[0]
    if isinstance(value, dict):
        return {str(k): _clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_value(v) for v in value]
    return value


@transaction.atomic
def events_record(
    *,
    principal: Principal,
    scope_id: int,
    scope: str,
    session_fields: dict[str, str],
    batch: list[NewEvent],
    flush: bool = False,
) -> Recorded:
    """Record the batch in order; `flush`, or an event that ends the session, writes the open
    event block too."""
    session, _ = importer.lock_session(
        scope_id, session_fields["tool"], session_fields["external_id"]
    )
    done = Recorded(session)
    if session.deleted_at is not None:
        done.skipped = "deleted"
        return done
    flush = flush or any(ev.ends_session(e.kind, e.data) for e in batch)
    rows = _new_rows(session, [_clean(e) for e in batch], done)
    SessionEvent.objects.bulk_create(rows)
    done.dropped = _cap(session, int(knobs.value("CTX_SESSION_EVENTS_MAX")))
    _touch(session, rows, session_fields)
    done.blocks = _write_pages(principal, scope, session, rows, flush=flush)
    return done


def _new_rows(session: Session, batch: list[NewEvent], done: Recorded) -> list[SessionEvent]:
    recent = list(
        SessionEvent.objects.filter(session=session)
        .order_by("-seq")
        .values_list("content_hash", flat=True)[: ev.RECENT]
    )
    now = timezone.now()
    rows: list[SessionEvent] = []
    for event in batch:
        digest = ev.digest(event.kind, event.text, event.data)
        if digest in recent:
            done.duplicates += 1
            continue
        recent = [digest, *recent][: ev.RECENT]
        session.event_seq += 1
        rows.append(
            SessionEvent(
                session=session,
                scope_id=session.scope_id,
                seq=session.event_seq,
                kind=event.kind,
                priority=ev.PRIORITY[event.kind],
                text=event.text,
                data=event.data,
                at=event.at or now,
                content_hash=digest,
            )
        )
    done.stored = len(rows)
    return rows


def _cap(session: Session, most: int) -> int:
    """Drop the lowest priority, oldest first, beyond `most` events; returns how many."""
    kept = SessionEvent.objects.filter(session=session)
    excess = kept.count() - most
    if excess <= 0:
        return 0
    doomed = kept.order_by("priority", "seq").values_list("pk", flat=True)[:excess]
    SessionEvent.objects.filter(pk__in=list(doomed)).delete()
    session.events_dropped += excess
    return excess


def _touch(session: Session, rows: list[SessionEvent], fields: dict[str, str]) -> None:
    """The session's counters, activity times, project and last prompt."""
    if fields.get("project_root") and not session.project_root:
        session.project_root = fields["project_root"]
    if rows:
        first, last = min(r.at for r in rows), max(r.at for r in rows)
        session.started_at = min(session.started_at or first, first)
        session.last_activity_at = max(session.last_activity_at or last, last)
        prompts = [r.text for r in rows if r.kind in ("user_prompt", "rule")]
        if prompts and not session.message_count:  # an imported transcript says it better
            session.preview = " ".join(prompts[-1].split())[:PREVIEW_CHARS]
    session.save()


# --- event blocks --------------------------------------------------------------------------


def _title(session: Session, page: int) -> str:
    return f"{session.tool} #{session.pk}: events {page + 1}"


def _write_pages(
    principal: Principal, scope: str, session: Session, rows: list[SessionEvent], *, flush: bool
) -> int:
    per_page = int(knobs.value("CTX_SESSION_EVENTS_PER_BLOCK"))
    pages = {ev.page_of(r.seq, per_page) for r in rows}
    if flush and session.event_seq:
        pages.add(ev.page_of(session.event_seq, per_page))

    def full(page: int) -> bool:
        return ev.page_range(page, per_page)[1] <= session.event_seq

    due = [p for p in sorted(pages) if full(p) or flush or _stale(session, p)]
    items = [item for p in due if (item := _page_block(session, p, per_page)) is not None]
    if not items:
        return 0
    results = block_services.block_upsert_many(principal=principal, scope=scope, items=items)
    return sum(r.action != "noop" for r in results)


def _stale(session: Session, page: int) -> bool:
    """The open page's block is missing or older than the flush interval."""
    written = (
        Block.objects.filter(
            scope_id=session.scope_id, category=category(session.tool), title=_title(session, page)
        )
        .values_list("updated_at", flat=True)
        .first()
    )
    wait = timedelta(seconds=int(knobs.value("CTX_SESSION_EVENTS_FLUSH_SECONDS")))
    return written is None or timezone.now() - written >= wait


def _page_block(session: Session, page: int, per_page: int) -> BlockInput | None:
    low, high = ev.page_range(page, per_page)
    rows = list(
        SessionEvent.objects.filter(session=session, seq__gte=low, seq__lte=high)
        .order_by("seq")
        .values_list("seq", "kind", "text", "at")
    )
    if not rows:
        return None
    lines = [ev.Line(seq, kind, text, at) for seq, kind, text, at in rows]
    return BlockInput(
        category=category(session.tool),
        title=_title(session, page),
        content=ev.render(lines),
        type=BlockType.TRANSCRIPT,
        metadata={
            "session_id": session.pk,
            "tool": session.tool,
            "external_id": session.external_id,
            "events": True,
            "first_seq": lines[0].seq,
            "last_seq": lines[-1].seq,
            "project": session.project_root or None,
        },
        source=f"session:{session.pk}",
        source_time=lines[0].at,
        source_session=f"{session.tool}:{session.external_id}"[:200],
    )


def purge(principal: Principal, session: Session) -> int:
    """Remove the session's event blocks (with their embeddings); returns how many. The
    events themselves go with the session's rows."""
    ids = Block.objects.filter(
        scope_id=session.scope_id, category=category(session.tool), source=f"session:{session.pk}"
    ).values_list("pk", flat=True)
    return block_services.block_purge(principal=principal, block_ids=[str(i) for i in ids])
