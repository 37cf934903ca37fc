"""Reads of indexed sources. `get_source_for` is the only way to one source: a label outside
the caller's readable scopes, or in a scope name the key does not have, is the same NotFound
as a missing one."""

from __future__ import annotations

from django.db.models import QuerySet

from ctx.errors import Conflict, NotFound
from ctx.principal import Principal
from ctx.selectors import first_for, row_for
from refindex.models import Source

SOURCE_NOT_FOUND = "Source not found."


def sources(principal: Principal, scope_ids: list[int]) -> QuerySet[Source]:
    return (
        Source.objects.readable_by(principal, scope_ids)
        .select_related("scope")
        .order_by("-updated_at", "-id")
    )


def get_source_for(
    principal: Principal, label: str, scope: str | None = None, *, write: bool = False
) -> Source:
    """The source of that label, in the named scope or the one readable scope holding it.
    With `write` the row is locked and a source the principal may only read is Forbidden."""
    if scope is not None and scope not in principal.scope_names:
        raise NotFound(SOURCE_NOT_FOUND)
    qs = Source.objects.filter(label=label).readable_by(principal).select_related("scope")
    if scope is not None:
        qs = qs.filter(scope_id=principal.scope_names[scope])
    elif qs.count() > 1:
        raise Conflict(f"'{label}' is indexed in several scopes; name one with 'scope'.")
    return row_for(principal, qs, write=write, missing=NotFound(SOURCE_NOT_FOUND))


def locked_in_scope(scope_id: int, label: str) -> Source | None:
    """The source of that label in a scope the caller writes, locked (a re-index waits)."""
    return first_for(Source.objects.filter(scope_id=scope_id, label=label), for_update=True)
