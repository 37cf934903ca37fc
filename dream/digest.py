"""The topic map of a scope: one block of type `digest`, rebuilt shortly after writes settle.

A write marks its scope due in CTX_DIGEST_DEBOUNCE_SECONDS; further writes push the due time
back, so a burst of writes costs one rebuild. The first write of a quiet scope enqueues one
delayed task; a task that wakes too early re-enqueues itself for the new due time, and the
feed rebuilds any scope whose task got lost. The map is deterministic (categories, their top
tags, their most central blocks) and carries no timestamp, so an unchanged scope rewrites
nothing (the upsert is a no-op). Digest blocks are excluded from retrieval unless asked for.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ctx import knobs
from ctx.models import ApiKey, Block, Scope
from ctx.principal import Principal
from ctx.services import BlockInput, UpsertResult, block_upsert
from dream.models import DigestState

CATEGORY = "digest"
TITLE = "Topic map"
MAX_CATEGORIES = 30
PER_CATEGORY = 5


def system_principal(scope: Scope) -> Principal:
    """Dream writes through the one write path as a key-less principal of the scope."""
    key = ApiKey(name="dream", tenant_id=scope.tenant_id, home_scope_id=scope.pk)
    ids = frozenset({scope.pk})
    return Principal(
        key=key,
        tenant_id=scope.tenant_id,
        tenant_name=scope.tenant.name,
        home_scope_id=scope.pk,
        read_scope_ids=ids,
        write_scope_ids=ids,
        scope_names={scope.name: scope.pk},
    )


_TOP = """
WITH live AS (
    SELECT id, category, title, lifecycle, quality, updated_at FROM ctx_block
    WHERE scope_id = %(scope)s AND NOT archived AND type <> 'digest'
      AND superseded_by_id IS NULL
), deg AS (
    SELECT x AS id, count(*) AS d FROM (
        SELECT source_id AS x FROM dream_link
        WHERE scope_id = %(scope)s AND link_class <> 'supersedes'
        UNION ALL
        SELECT target_id FROM dream_link
        WHERE scope_id = %(scope)s AND link_class <> 'supersedes') u
    GROUP BY x
), ranked AS (
    SELECT l.category, l.title, l.lifecycle, coalesce(d.d, 0) AS deg,
        row_number() OVER (PARTITION BY l.category ORDER BY (l.lifecycle = 'canonical') DESC,
            coalesce(d.d, 0) DESC, l.quality DESC, l.updated_at DESC, l.id) AS rn,
        count(*) OVER (PARTITION BY l.category) AS n
    FROM live l LEFT JOIN deg d ON d.id = l.id
)
SELECT category, n, title, lifecycle, deg FROM ranked WHERE rn <= %(per)s
ORDER BY n DESC, category, rn
"""

_TAGS = """
SELECT category, tag, count(*) FROM ctx_block, unnest(tags) AS tag
WHERE scope_id = %(scope)s AND NOT archived AND type <> 'digest'
GROUP BY category, tag
"""


def render(scope: Scope) -> tuple[str, dict[str, Any]]:
    """The map as Markdown, and its figures."""
    params = {"scope": scope.pk, "per": PER_CATEGORY}
    with connection.cursor() as cur:
        cur.execute(_TOP, params)
        top = cur.fetchall()
        cur.execute(_TAGS, params)
        tag_rows = cur.fetchall()
    tags: dict[str, Counter[str]] = {}
    for category, tag, n in tag_rows:
        tags.setdefault(category, Counter())[tag] = n
    sections: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    for category, n, title, lifecycle, deg in top:
        if category not in sections and len(sections) >= MAX_CATEGORIES:
            continue
        sizes[category] = n
        mark = " [canonical]" if lifecycle == "canonical" else ""
        linked = f" ({deg} link{'' if deg == 1 else 's'})" if deg else ""
        sections.setdefault(category, []).append(f"- {title}{mark}{linked}")
    lines = [f"# {TITLE}: {scope.name}", ""]
    lines.append(f"{sum(sizes.values())} current blocks in {len(sizes)} categories shown.")
    for category, items in sections.items():
        lines += ["", f"## {category} ({sizes[category]})"]
        common = [t for t, _ in sorted(tags.get(category, Counter()).items(), key=_tag_order)]
        if common:
            lines.append("tags: " + ", ".join(common[:5]))
        lines += items
    figures = {"categories": len(sizes), "blocks": sum(sizes.values())}
    return _bounded("\n".join(lines) + "\n"), figures


def _tag_order(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])


def _bounded(text: str) -> str:
    limit = knobs.value("CTX_MAX_CONTENT_BYTES") - 64
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[:limit].decode("utf-8", errors="ignore")
    return cut[: cut.rfind("\n") + 1] + "…\n"


def digest_build(*, scope_id: int) -> tuple[UpsertResult | None, dict[str, Any]]:
    """Rebuild the scope's topic map now; returns the upsert (None for an empty scope)."""
    scope = Scope.objects.select_related("tenant").get(pk=scope_id)
    content, figures = render(scope)
    result = None
    if figures["blocks"]:
        data = BlockInput(
            category=CATEGORY,
            title=TITLE,
            content=content,
            tags=["digest"],
            type="digest",
            metadata={"generator": "dream.digest", **figures},
        )
        result = block_upsert(principal=system_principal(scope), scope=None, data=data)
    DigestState.objects.update_or_create(
        scope_id=scope_id,
        defaults={
            "due_at": None,
            "built_at": timezone.now(),
            "block": result.block if result else None,
        },
    )
    return result, figures


def scopes_of(block_ids: list[str]) -> list[int]:
    """Scopes whose maps a write changes (writing a digest block changes none)."""
    return sorted(
        set(
            Block.objects.filter(pk__in=block_ids)
            .exclude(type="digest")
            .values_list("scope_id", flat=True)
        )
    )


def mark_due(scope_id: int, *, now: datetime) -> bool:
    """Push the scope's rebuild back by the debounce; True when no rebuild was pending (the
    caller then enqueues one)."""
    debounce = timedelta(seconds=knobs.value("CTX_DIGEST_DEBOUNCE_SECONDS"))
    with transaction.atomic():
        state, _ = DigestState.objects.select_for_update().get_or_create(scope_id=scope_id)
        pending = state.due_at is not None
        state.due_at = now + debounce
        state.save(update_fields=["due_at"])
    return not pending


def due_in(scope_id: int, *, now: datetime) -> float | None:
    """Seconds until the scope's rebuild is due (≤ 0: now); None when nothing is pending."""
    due = DigestState.objects.filter(scope_id=scope_id).values_list("due_at", flat=True).first()
    return None if due is None else (due - now).total_seconds()


def overdue(*, now: datetime, grace: float = 60.0) -> list[int]:
    """Scopes whose rebuild is overdue by more than `grace` seconds (their task got lost)."""
    return list(
        DigestState.objects.filter(due_at__lte=now - timedelta(seconds=grace)).values_list(
            "scope_id", flat=True
        )
    )
