"""Dream Mode, link review, the guard's flags, digests and the ego graph as operations."""

from __future__ import annotations

from typing import Annotated, Any

from django.db import transaction
from django.utils import timezone
from pydantic import BeforeValidator, Field

from ctx import knobs, selectors
from ctx.errors import ValidationFailed
from ctx.ops.inputs import (
    ChoiceParam,
    FloatParam,
    Input,
    IntParam,
    OneOf,
    ScopeList,
    Text,
    When,
)
from ctx.permissions import require_server_admin
from ctx.principal import Principal
from ctx.services import block_update, writable_scope
from ctx.validation import MAX_CATEGORY, string_list
from dream import digest, ego, engines, guard, presenters, services
from dream import selectors as dream_selectors
from dream.models import GuardFlag, GuardStatus, LinkClass

ScopeArg = Annotated[str | None, Text(100, required=False, description="One scope.")]
Action = Annotated[str, Text(16, description="What to do.")]
MAX_EGO_CATEGORIES = 50


class ScopesParam(Input):
    scopes: ScopeList = []
    scope: ScopeArg = None

    def scope_ids(self, p: Principal) -> list[int]:
        names = [*self.scopes, *([self.scope] if self.scope else [])]
        return selectors.readable_scope_ids(p, names)


class NoInput(Input):
    pass


def mode_get(p: Principal, data: NoInput) -> dict[str, str]:
    return {"mode": services.mode_get()}


class ModeInput(Input):
    mode: Annotated[str, Text(16, description="on, throttled or off.")]


def mode_set(p: Principal, data: ModeInput) -> dict[str, str]:
    require_server_admin(p)  # one switch for every tenant
    return {"mode": services.mode_set(mode=data.mode, by=p.key.name).mode}


class ModeMaybe(Input):
    mode: Annotated[
        str | None, Text(16, required=False, description="on, throttled or off; absent: read.")
    ] = None


def mode(p: Principal, data: ModeMaybe) -> dict[str, str]:
    """The design's one `dream-mode` action: read the mode, or set it when one is given."""
    if data.mode is None:
        return mode_get(p, NoInput())
    return mode_set(p, ModeInput(mode=data.mode))


def stats(p: Principal, data: ScopesParam) -> dict[str, Any]:
    scope_ids = data.scope_ids(p)
    return {
        "mode": services.mode_get(),
        "queue": dream_selectors.queue_stats(scope_ids, now=timezone.now()),
        "links": dream_selectors.link_counts(scope_ids),
        "engines": engines.describe(),
    }


Limit500 = Annotated[int | None, IntParam(1, 500, description="Most items (default 50).")]


class ReviewInput(ScopesParam):
    link_class: Annotated[str | None, ChoiceParam(tuple(LinkClass.values))] = None
    limit: Limit500 = None


def review(p: Principal, data: ReviewInput) -> dict[str, Any]:
    found = dream_selectors.review_links(
        p,
        data.scope_ids(p),
        below=knobs.value("CTX_DREAM_REVIEW_BELOW"),
        link_class=data.link_class,
        limit=data.limit or 50,
    )
    links = [presenters.link(x) for x in found]
    return {"count": len(links), "links": links}


class LinkResolveInput(Input):
    link: Any = None  # an id; a foreign or malformed one answers like a missing one (404)
    action: Action


def link_resolve(p: Principal, data: LinkResolveInput) -> dict[str, Any]:
    return services.link_resolve(principal=p, link_id=data.link, action=data.action)


class RevertInput(Input):
    block: Annotated[str, Text(64, description="The block whose replaced link set comes back.")]


def links_revert(p: Principal, data: RevertInput) -> dict[str, Any]:
    return services.links_revert(principal=p, block_id=data.block, now=timezone.now())


class LinkCreateInput(Input):
    source: Annotated[str, Text(64, description="The block the link starts at.")]
    target: Annotated[str, Text(64, description="The block it points to.")]
    link_class: Annotated[str, OneOf(tuple(LinkClass.values), description="The relation.")]
    confidence: Annotated[float | None, FloatParam(0.0, 1.0)] = None


def link_create(p: Principal, data: LinkCreateInput) -> dict[str, Any]:
    link = services.link_add(
        principal=p,
        source_id=data.source,
        target_id=data.target,
        link_class=data.link_class,
        confidence=1.0 if data.confidence is None else data.confidence,
    )
    return {"action": "created", "link": presenters.link(link)}


class FlagsInput(ScopesParam):
    status: Annotated[str | None, ChoiceParam(tuple(GuardStatus.values))] = None
    limit: Limit500 = None


def flags_list(p: Principal, data: FlagsInput) -> dict[str, Any]:
    flags = guard.flags_list(
        p, data.scope_ids(p), status=data.status or GuardStatus.OPEN, limit=data.limit or 50
    )
    items = [presenters.flag(f) for f in flags]
    return {"count": len(items), "flags": items}


def flags_stats(p: Principal, data: ScopesParam) -> dict[str, Any]:
    return {"stats": guard.flags_stats(p, data.scope_ids(p))}


class FlagResolveInput(Input):
    id: Any = None  # a foreign or malformed id answers like a missing one (404)
    action: Action


FLAG_ACTIONS = ("archive", "keep", "merge")


def flag_resolve(p: Principal, data: FlagResolveInput) -> dict[str, Any]:
    if data.action not in FLAG_ACTIONS:
        raise ValidationFailed(
            "'action' must be archive, keep or merge.", details={"field": "action"}
        )
    if data.action == "merge":
        return {"flag": presenters.flag(_merge(p, data.id))}
    flag = guard.flag_resolve(principal=p, flag_id=data.id, action=data.action)
    return {"flag": presenters.flag(flag)}


def _merge(p: Principal, flag_id: Any) -> GuardFlag:
    """The flagged block's text and tags go into its twin (a new version of the twin, through
    the block update: re-derived, re-embedded), then the flagged block is archived as `archive`
    does it: nothing is lost, and `keep` or a restore brings it back."""
    with transaction.atomic():  # the flag is read for update: one transaction for all of it
        flag = guard.get_flag_for(p, flag_id, write=True)
        block, twin = flag.block, flag.twin
        fields: dict[str, Any] = {}
        if block.content.strip() not in twin.content:
            fields["content"] = twin.content.rstrip() + "\n\n" + block.content.strip()
        extra = [t for t in block.tags if t not in twin.tags]
        if extra:
            fields["tags"] = [*twin.tags, *extra]
        if fields:
            block_update(principal=p, block_id=str(twin.pk), fields=fields)
        return guard.flag_resolve(principal=p, flag_id=flag_id, action="archive")


class DigestInput(Input):
    scope: ScopeArg = None


def digest_build(p: Principal, data: DigestInput) -> dict[str, Any]:
    scope_id = writable_scope(p, data.scope or None)
    result, figures = digest.digest_build(scope_id=scope_id)
    payload: dict[str, Any] = {"action": "empty", "id": None, **figures}
    if result is not None:
        payload.update(action=result.action, id=str(result.block.pk))
    return payload


def _link_classes(data: dict[str, Any], name: str) -> list[str]:
    values = string_list(data, name, max_items=len(LinkClass.values), max_len=16)
    unknown = [c for c in values if c not in LinkClass.values]
    if unknown:
        raise ValidationFailed(
            f"'{name}' must be one of {', '.join(LinkClass.values)}.", details={"field": name}
        )
    return values


LinkClasses = Annotated[
    list[Annotated[str, Field(json_schema_extra={"enum": list(LinkClass.values)})]],
    Field(
        max_length=len(LinkClass.values),
        description="Only links of these classes (comma-separated in a query string).",
    ),
    BeforeValidator(lambda raw, info: _link_classes({"link_class": raw}, "link_class")),
]
Categories = Annotated[
    list[Annotated[str, Field(max_length=MAX_CATEGORY)]],
    Field(
        max_length=MAX_EGO_CATEGORIES,
        description="Only neighbours in these categories (comma-separated in a query string).",
    ),
    BeforeValidator(
        lambda raw, info: string_list(
            {"category": raw}, "category", max_items=MAX_EGO_CATEGORIES, max_len=MAX_CATEGORY
        )
    ),
]


class EgoInput(Input):
    # `id` as in /api/manage; `block` was the first name and stays accepted.
    id: Annotated[str | None, Text(64, required=False, description="The focus block.")] = None
    block: Annotated[str | None, Text(64, required=False, description="Alias of `id`.")] = None
    hops: Annotated[int | None, IntParam(1, ego.MAX_HOPS, "Link steps (default 1).")] = None
    per_node_cap: Annotated[
        int | None,
        IntParam(1, ego.MAX_PER_NODE, "Links kept per expanded node, by raw confidence (25)."),
    ] = None
    limit: Annotated[int | None, IntParam(1, ego.MAX_NODES, "Most nodes (default 500).")] = None
    edge_limit: Annotated[
        int | None, IntParam(1, ego.MAX_EDGES, "Most edges, strongest first (default 2000).")
    ] = None
    min_confidence: Annotated[
        float | None, FloatParam(0.0, 1.0, "Weakest link followed (0-1).")
    ] = None
    link_class: LinkClasses = []
    category: Categories = []
    created_after: When = None
    created_before: When = None


def _centre(data: EgoInput) -> str:
    if data.id and data.block and data.id != data.block:
        raise ValidationFailed(
            "Give 'id' or its alias 'block', not both.", details={"field": "block"}
        )
    centre = data.id or data.block
    if not centre:
        raise ValidationFailed("'id' is required.", details={"field": "id"})
    return centre


def ego_graph(p: Principal, data: EgoInput) -> dict[str, Any]:
    after, before = data.created_after, data.created_before
    if after is not None and before is not None and after > before:
        raise ValidationFailed(
            "'created_before' must not be earlier than 'created_after'.",
            details={"field": "created_before"},
        )
    params = ego.EgoParams(
        block=_centre(data),
        hops=data.hops or 1,
        per_node_cap=data.per_node_cap or 25,
        limit=data.limit or 500,
        edge_limit=data.edge_limit or 2000,
        min_confidence=data.min_confidence or 0.0,
        link_classes=tuple(data.link_class),
        categories=tuple(data.category),
        created_after=after,
        created_before=before,
    )
    return ego.ego_graph(p, params)
