"""What changed since a moment: new notes, facts, preferences, decisions, tasks and entities,
facts superseded by newer ones, blocks whose content changed (before and after, from their version
history), and new conversations per tool. Each change has one sentence from a template (no LLM).

The changes come from three sources, each read newest first with its own index (blocks by
`created_at`, versions by (scope, replaced_at), sessions through the conversations app's
selector) and merged; a page is a keyset position (time, key) so every page costs the same,
however far back `since` lies.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Max, Q

from ctx import masking
from ctx.errors import ValidationFailed
from ctx.models import Block, BlockType, BlockVersion
from ctx.principal import Principal
from ingest import selectors as sessions

KINDS = (BlockType.FACT, BlockType.PREFERENCE, BlockType.DECISION, BlockType.TASK)
# What people store by hand counts as a change too ("ctx save" is a knowledge block): a note
# saved yesterday answered "nothing changed". Transcripts count as sessions, per tool; indexed
# documents, digests and the server's own records are not memories of their own.
NEW_TYPES = [*KINDS, BlockType.ENTITY, BlockType.KNOWLEDGE, BlockType.NOTE]
SNIPPET = 160
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Window:
    principal: Principal
    scope_ids: list[int]
    since: datetime
    until: datetime
    limit: int
    after: tuple[datetime, str] | None  # the cursor: changes strictly older than this


@dataclass
class Change:
    at: datetime
    key: str  # unique and ordered the same way in the database and here
    kind: str
    item: dict[str, Any]


# --- cursor -------------------------------------------------------------------------------------


def encode_cursor(change: Change) -> str:
    raw = f"{change.at.isoformat()}|{change.key}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        when, _, key = raw.partition("|")
        if not key:
            raise ValueError(key)
        return datetime.fromisoformat(when), key
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ValidationFailed(
            "'cursor' is not a next_cursor this endpoint returned.", details={"field": "cursor"}
        ) from None


def _before_cursor(w: Window, field: str, prefix: str, key_field: str) -> Q:
    """Rows strictly older than the cursor in (time, key) order; `prefix` is this source's
    key prefix, so a tie at the same instant across sources is ordered by prefix."""
    if w.after is None:
        return Q()
    at, key = w.after
    same_source = key.startswith(prefix)
    older = Q(**{f"{field}__lt": at})
    if same_source:
        return older | Q(**{field: at, f"{key_field}__lt": key.removeprefix(prefix)})
    return older | Q(**{field: at}) if prefix < key else older


# --- text ---------------------------------------------------------------------------------------


_NUMBERED = re.compile(r" \(\d+\)$")


def snippet(text: str) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= SNIPPET else flat[:SNIPPET].rsplit(" ", 1)[0] + "…"


NEW_SENTENCE = {
    "fact": "New fact: {text}",
    "preference": "New preference: {text}",
    "decision": "Decided: {text}",
    "task": "New task: {text}",
    "entity": "New {entity}: {title}.",
    "knowledge": 'New note "{title}": {text}',
    "note": 'New note "{title}": {text}',
}


def _entity(block: Block) -> str:
    meta = block.metadata if isinstance(block.metadata, dict) else {}
    return str(meta.get("entity_type") or meta.get("kind") or "entity")


# --- sources ------------------------------------------------------------------------------------


def _new_blocks(w: Window) -> Iterator[Change]:
    """Blocks of the memory types created in the window, newest first."""
    qs = (
        Block.objects.live()
        .in_scopes(w.scope_ids)
        .filter(type__in=NEW_TYPES, created_at__gte=w.since, created_at__lt=w.until)
        .filter(_before_cursor(w, "created_at", "b:", "id"))
        .select_related("scope")
        .only("id", "scope__name", "title", "content", "type", "metadata", "created_at")
        .order_by("-created_at", "-id")
    )
    for block in qs[: w.limit + 1]:
        yield Change(block.created_at, f"b:{block.pk}", "new", {"block": block})


def _versions(w: Window) -> Iterator[Change]:
    """Versions written in the window: a block's content changed (the version holds before)."""
    qs = (
        BlockVersion.objects.in_scopes(w.scope_ids)
        .filter(replaced_at__gte=w.since, replaced_at__lt=w.until)
        .order_by("-replaced_at", "-id")
    )
    if w.after is not None and w.after[1].startswith("v:"):
        at, key = w.after  # keys are zero-padded ids: compare them as numbers here
        qs = qs.filter(Q(replaced_at__lt=at) | Q(replaced_at=at, id__lt=int(key[2:])))
    else:
        qs = qs.filter(_before_cursor(w, "replaced_at", "v:", "id"))
    for row in qs[: w.limit + 1]:
        yield Change(row.replaced_at, f"v:{row.pk:012d}", "updated", {"version": row})


def _sessions(w: Window) -> Iterator[Change]:
    """New conversations per tool: one change per tool, at its newest session."""
    live = sessions.sessions(w.principal, sessions.SessionFilter(scope_ids=w.scope_ids))
    rows = (
        live.filter(created_at__gte=w.since, created_at__lt=w.until)
        .order_by()
        .values("tool")
        .annotate(n=Count("id"), at=Max("created_at"))
    )
    changes = [
        Change(r["at"], f"s:{r['tool']}", "sessions", {"tool": r["tool"], "count": r["n"]})
        for r in rows
    ]
    changes.sort(key=lambda c: (c.at, c.key), reverse=True)
    for change in changes:
        if w.after is None or (change.at, change.key) < w.after:
            yield change


def merged(w: Window) -> list[Change]:
    """The page: the newest `limit + 1` changes of all sources, newest first."""
    streams: Iterable[Iterator[Change]] = (_new_blocks(w), _versions(w), _sessions(w))
    ordered = heapq.merge(*streams, key=lambda c: (c.at, c.key), reverse=True)
    page: list[Change] = []
    for change in ordered:
        page.append(change)
        if len(page) > w.limit:
            break
    return page


# --- what each change says ----------------------------------------------------------------------


def _predecessors(w: Window, page: list[Change]) -> dict[Any, list[Block]]:
    """The readable blocks each new block of the page superseded."""
    ids = [c.item["block"].pk for c in page if c.kind == "new"]
    found: dict[Any, list[Block]] = {}
    if ids:
        old = Block.objects.in_scopes(w.scope_ids).filter(superseded_by_id__in=ids)
        for block in old.only("id", "title", "content", "superseded_by_id"):
            found.setdefault(block.superseded_by_id, []).append(block)
    return found


def _afters(w: Window, page: list[Change]) -> dict[tuple[Any, int], str]:
    """For each version of the page, the content that replaced it: the next version's, or the
    block's own when it is the latest."""
    rows = [c.item["version"] for c in page if c.kind == "updated"]
    if not rows:
        return {}
    wanted = {(r.block_id, r.version + 1) for r in rows}
    nexts = BlockVersion.objects.in_scopes(w.scope_ids).filter(  # a superset; filtered below
        block_id__in={b for b, _ in wanted}, version__in={n for _, n in wanted}
    )
    shown = w.principal  # every text is masked above the caller's read ceiling
    after = {
        (b, n - 1): masking.text(shown, level, content)
        for b, n, content, level in nexts.values_list(
            "block_id", "version", "content", "sensitivity"
        )
        if (b, n) in wanted
    }
    current = Block.objects.in_scopes(w.scope_ids).filter(pk__in={r.block_id for r in rows})
    contents = {
        pk: masking.text(shown, level, content)
        for pk, content, level in current.values_list("id", "content", "sensitivity")
    }
    for row in rows:
        after.setdefault((row.block_id, row.version), contents.get(row.block_id, ""))
    return after


def _lead(title: str, content: str) -> str:
    """A superseding block's title, or "Changed" when the title is its own sentence (an
    extracted fact is titled by it, numbered " (2)" when taken): not said twice."""
    return "Changed" if _NUMBERED.sub("", title).strip() == content.strip() else title


def _new_item(principal: Principal, change: Change, before: list[Block]) -> dict[str, Any]:
    block: Block = change.item["block"]
    content = masking.text(principal, block.sensitivity, block.content)
    base = {
        "id": str(block.pk),
        "scope": block.scope.name,
        "type": block.type,
        "title": block.title,
    }
    if before:
        old = before[0]
        old_content = masking.text(principal, old.sensitivity, old.content)
        sentence = (
            f'{_lead(block.title, content)}: "{snippet(old_content)}" is now "{snippet(content)}".'
        )
        return {
            **base,
            "kind": "superseded",
            "sentence": sentence,
            "before": {"id": str(old.pk), "content": old_content},
            "after": {"id": str(block.pk), "content": content},
        }
    template = NEW_SENTENCE[block.type]
    sentence = template.format(
        text=snippet(content or block.title), title=block.title, entity=_entity(block)
    )
    return {**base, "kind": f"new_{block.type}", "sentence": sentence}


def _updated_item(
    principal: Principal, change: Change, afters: dict[tuple[Any, int], str]
) -> dict[str, Any]:
    row: BlockVersion = change.item["version"]
    after = afters.get((row.block_id, row.version), "")  # masked already (_afters)
    content = masking.text(principal, row.sensitivity, row.content)
    if after != row.content:
        what = f'"{snippet(content)}" → "{snippet(after)}"'
    else:
        what = "its title, tags or metadata changed"
    sentence = f"{row.title} was changed by {row.replaced_by} ({row.replaced_via}): {what}."
    return {
        "id": str(row.block_id),
        "type": row.type,
        "title": row.title,
        "kind": "updated",
        "version": row.version,
        "sentence": sentence,
        "before": {"version": row.version, "content": content},
        "after": {"version": row.version + 1, "content": after},
    }


def _sessions_item(change: Change) -> dict[str, Any]:
    tool, n = change.item["tool"], change.item["count"]
    plural = "session" if n == 1 else "sessions"
    return {
        "kind": "new_sessions",
        "tool": tool,
        "count": n,
        "sentence": f"{n} new {tool} {plural}.",
    }


def describe(w: Window, page: list[Change]) -> list[dict[str, Any]]:
    """The page's changes as wire items, each with its time and sentence."""
    before = _predecessors(w, page)
    afters = _afters(w, page)
    items = []
    for change in page:
        if change.kind == "new":
            item = _new_item(w.principal, change, before.get(change.item["block"].pk, []))
        elif change.kind == "updated":
            item = _updated_item(w.principal, change, afters)
        else:
            item = _sessions_item(change)
        items.append({"at": change.at.isoformat(), **item})
    return items


def summary(w: Window) -> dict[str, int]:
    """How many changes of each kind the whole window holds (not only this page)."""
    blocks = (
        Block.objects.live()
        .in_scopes(w.scope_ids)
        .filter(type__in=NEW_TYPES, created_at__gte=w.since, created_at__lt=w.until)
        .order_by()
        .values("type")
        .annotate(n=Count("id"))
    )
    counts = {f"new_{r['type']}": r["n"] for r in blocks}
    counts["updated"] = (
        BlockVersion.objects.in_scopes(w.scope_ids)
        .filter(replaced_at__gte=w.since, replaced_at__lt=w.until)
        .count()
    )
    return counts
