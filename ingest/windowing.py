"""A session's windows as `transcript` blocks, kept in step with its messages.

Only the windows a batch touched are written again: windows are fixed by the session's message
count (ingest.windows.starts), so appending messages changes the last window or two, and a
window whose range and messages are unchanged keeps its block (and its embedding). A window
whose range no longer exists (the old tail window) loses its block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ctx import knobs, services
from ctx.models import BlockType
from ctx.principal import Principal
from ctx.services import BlockInput
from ingest import windows as w
from ingest.models import Message, Session, Window

UPSERT_CHUNK = 500  # block_upsert_many's batch size (one locking read, one bulk insert)


def limits() -> w.Limits:
    return w.Limits(
        size=knobs.value("CTX_SESSION_WINDOW_SIZE"),
        stride=knobs.value("CTX_SESSION_WINDOW_STRIDE"),
        message_chars=knobs.value("CTX_SESSION_WINDOW_MESSAGE_CHARS"),
        assistant_chars=knobs.value("CTX_SESSION_WINDOW_ASSISTANT_CHARS"),
        tool_chars=knobs.value("CTX_SESSION_WINDOW_TOOL_CHARS"),
    )


def category(session: Session) -> str:
    return f"sessions/{session.tool}"


def title(session: Session, first: int, last: int) -> str:
    """Unique per window in the scope; short, because it is embedded in front of each of the
    window's pieces (retrieval.chunking)."""
    return f"{session.tool} #{session.pk}: {first + 1}-{last + 1}"


@dataclass(frozen=True)
class Plan:
    write: list[tuple[int, int]]  # window ranges to (re)write
    stale: list[Window]  # windows whose range is gone


def plan(session: Session, changed_from: int | None, lim: w.Limits) -> Plan:
    indexes = list(
        Message.objects.filter(session=session).order_by("index").values_list("index", flat=True)
    )
    wanted = w.spans(indexes, lim.size, lim.stride)
    existing = {(x.first_index, x.last_index): x for x in session.windows.all()}
    write = [
        span
        for span in wanted
        if span not in existing or (changed_from is not None and span[1] >= changed_from)
    ]
    stale = [x for key, x in existing.items() if key not in set(wanted)]
    return Plan(write=write, stale=stale)


def _lines(session: Session, ranges: list[tuple[int, int]]) -> list[w.Line]:
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    rows = (
        Message.objects.filter(session=session, index__gte=low, index__lte=high)
        .order_by("index")
        .values_list("index", "role", "text", "timestamp", "tool_calls")
    )
    return [w.Line(i, role, text, ts, tuple(calls)) for i, role, text, ts, calls in rows]


def _block(session: Session, lines: list[w.Line], lim: w.Limits) -> BlockInput:
    first, last = lines[0].index, lines[-1].index
    started, _ = w.bounds(lines)
    return BlockInput(
        category=category(session),
        title=title(session, first, last),
        content=w.render(lines, lim),
        type=BlockType.TRANSCRIPT,
        metadata={
            "session_id": session.pk,
            "tool": session.tool,
            "external_id": session.external_id,
            "first_index": first,
            "last_index": last,
            "project": session.project_root or None,
        },
        source=f"session:{session.pk}",
        source_time=started or session.started_at,
        source_session=f"{session.tool}:{session.external_id}"[:200],
    )


def _chunks(items: list[BlockInput], size: int) -> Iterable[list[BlockInput]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass
class Pending:
    """What one session's windows need: blocks to (re)write and blocks whose range is gone."""

    session: Session
    items: list[BlockInput]
    stale: list[str]


def pending(session: Session, changed_from: int | None) -> Pending:
    lim = limits()
    todo = plan(session, changed_from, lim)
    stale = [str(x.block_id) for x in todo.stale]
    if not todo.write:
        return Pending(session, [], stale)
    lines = _lines(session, todo.write)
    position = {line.index: pos for pos, line in enumerate(lines)}
    items = [_block(session, lines[position[a] : position[b] + 1], lim) for a, b in todo.write]
    return Pending(session, items, stale)


def write(principal: Principal, scope: str, work: list[Pending]) -> int:
    """Write the windows of several sessions together: one upsert per 500 windows, so that
    the embedding after commit gets full batches (a session's few windows each made a task of
    their own: per-task overhead and 6-text model batches, measured at one window a second).
    Returns how many blocks were written (created or updated)."""
    stale = [block_id for p in work for block_id in p.stale]
    if stale:
        services.block_purge(principal=principal, block_ids=stale)
    sessions = {p.session.pk: p.session for p in work}
    items = [item for p in work for item in p.items]
    written = 0
    for chunk in _chunks(items, UPSERT_CHUNK):
        results = services.block_upsert_many(principal=principal, scope=scope, items=chunk)
        _link(sessions, results)
        written += sum(r.action != "noop" for r in results)
    return written


def _link(sessions: dict[int, Session], results: list[services.UpsertResult]) -> None:
    rows = [
        Window(
            session=sessions[r.block.metadata["session_id"]],
            scope_id=r.block.scope_id,
            first_index=r.block.metadata["first_index"],
            last_index=r.block.metadata["last_index"],
            block=r.block,
        )
        for r in results
    ]
    Window.objects.bulk_create(rows, ignore_conflicts=True)


def purge(principal: Principal, session: Session) -> int:
    """Remove every window block of the session (their embeddings, anchors and links go with
    them); returns how many."""
    ids = [str(b) for b in session.windows.values_list("block_id", flat=True)]
    return services.block_purge(principal=principal, block_ids=ids)
