"""Memory formation as operations: the extracted facts with their evidence and sources.
Input bounds live here, once; a value longer than its bound is refused whole (413)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from ctx import selectors
from ctx.errors import TooLarge, ValidationFailed
from ctx.ops.inputs import BoolParam, ChoiceParam, Input, IntParam, ScopeList, When
from ctx.principal import Principal
from memory import payloads as p
from memory import selectors as memory_selectors
from memory.models import KINDS


def _bounded(limit: int) -> BeforeValidator:
    """A trimmed string of at most `limit` characters; longer is a 413 naming the field."""

    def check(raw: Any, info: Any) -> str | None:
        name = str(info.field_name)
        if raw is None or raw == "":
            return None
        if not isinstance(raw, str):
            raise ValidationFailed(f"'{name}' must be a string.", details={"field": name})
        if len(raw) > limit:
            raise TooLarge(
                f"'{name}' is longer than {limit} characters.",
                details={"field": name, "limit": limit},
            )
        return raw.strip() or None

    return BeforeValidator(check)


SubjectFilter = Annotated[
    str | None,
    WithJsonSchema({"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]}),
    Field(description="Only facts about this subject (user, team, a name)."),
    _bounded(200),
]
AttributeFilter = Annotated[
    str | None,
    WithJsonSchema({"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]}),
    Field(description="Only facts of this attribute (employer, deploy_day, …)."),
    _bounded(200),
]


class FactsInput(Input):
    subject: SubjectFilter = None
    kind: Annotated[str | None, ChoiceParam(KINDS, description="Only this kind of fact.")] = None
    attribute: AttributeFilter = None
    scopes: ScopeList = []
    as_of: Annotated[When, Field(description="Facts valid at this moment (time travel).")] = None
    history: Annotated[bool, BoolParam("Superseded versions too (default: the current facts).")] = (
        False
    )
    limit: Annotated[int | None, IntParam(1, 200, description="Most facts (default 50).")] = None
    offset: Annotated[int | None, IntParam(0, 100_000, description="Facts to skip.")] = None


def facts_list(principal: Principal, data: FactsInput) -> p.FactListPayload:
    found = memory_selectors.facts(
        principal,
        memory_selectors.FactFilter(
            scope_ids=selectors.readable_scope_ids(principal, list(data.scopes)),
            subject=data.subject,
            kind=data.kind,
            attribute=data.attribute,
            as_of=data.as_of,
            history=data.history,
        ),
    )
    offset, limit = data.offset or 0, data.limit or 50
    page = list(found[offset : offset + limit])
    rows = memory_selectors.sources_of([f.pk for f in page])
    total = found.count() if len(page) == limit or offset else offset + len(page)
    return {
        "count": len(page),
        "total": total,
        "offset": offset,
        "facts": [p.fact(principal, f, rows.get(str(f.pk), [])) for f in page],
    }


# Any: a foreign, missing or malformed id must reach the selector and answer its one 404.
FactId = Annotated[
    Any,
    WithJsonSchema({"type": "string", "maxLength": 64}),
    Field(description="A fact id from the facts list."),
]


class FactInput(Input):
    id: FactId


def fact_get(principal: Principal, data: FactInput) -> p.FactPayload:
    fact = memory_selectors.get_fact_for(principal, data.id)
    rows = memory_selectors.sources_of([fact.pk])
    return {"fact": p.fact(principal, fact, rows.get(str(fact.pk), []))}
