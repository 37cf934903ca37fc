"""Input models: each operation's input is declared once, with its bounds, defaults and
unknown-field policy, and every interface (HTTP, MCP, admin, web pages, tasks) parses through it.

The models are pydantic classes so that the same declaration also gives the MCP tools their
JSON schema and the OpenAPI schema its request bodies. Each field type below validates with the
primitives of `ctx.validation` and raises the envelope's own errors (`ValidationFailed`,
`TooLarge`) naming the field; pydantic lets those exceptions through unchanged, so every
interface answers with the same stable message. What pydantic itself reports (a missing field,
an unknown one) is translated in `_translated`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from annotated_types import GroupedMetadata
from django.utils import timezone
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema
from pydantic import ValidationInfo as Info

from ctx import knobs
from ctx import validation as v
from ctx.errors import CtxError, ValidationFailed
from ctx.models import BlockType, Sensitivity
from retrieval.temporal.since import since_of

# One policy for every input: a field the operation does not know is an error naming it.
UNKNOWN_FIELDS: Literal["forbid", "ignore"] = "forbid"


class Input(BaseModel):
    """Base of every operation input. `parse` is the only way in from raw data."""

    model_config = ConfigDict(extra=UNKNOWN_FIELDS, frozen=True, validate_default=False)

    @classmethod
    def parse(cls, data: Any) -> Self:
        data = v.require_object(data)
        v.clean_tree(data)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise _translated(exc) from None


def _translated(exc: ValidationError) -> CtxError:
    """pydantic's first finding as the envelope's validation error, naming the field."""
    error = exc.errors(include_url=False)[0]
    name = ".".join(str(part) for part in error["loc"]) or "body"
    kind = error["type"]
    if kind == "missing":
        message = f"'{name}' is required."
    elif kind == "extra_forbidden":
        message = f"Unknown field '{name}'."
    else:
        message = f"'{name}' is invalid."
    return ValidationFailed(message, details={"field": name})


def _check(parse: Callable[[dict[str, Any], str], Any]) -> BeforeValidator:
    """A field validator running one `ctx.validation` primitive on the field's own value."""

    def run(value: Any, info: Info) -> Any:
        name = str(info.field_name)
        return parse({name: value}, name)

    return BeforeValidator(run)


# --- field types -------------------------------------------------------------------------------


def _text(max_len: int, *, required: bool = True) -> BeforeValidator:
    """A trimmed string of at most `max_len` characters; required ones must not be empty."""
    return _check(lambda d, n: v.string(d, n, max_len=max_len, required=required))


def _int(low: int, high: int, default: int) -> BeforeValidator:
    return _check(lambda d, n: v.integer(d, n, default=default, low=low, high=high))


Flag = Annotated[bool, _check(lambda d, n: v.boolean(d, n))]


@dataclass(frozen=True)
class Text(GroupedMetadata):
    """`Annotated[str, Text(100)]`: a trimmed string of at most 100 characters, not empty;
    `Annotated[str | None, Text(500, required=False)]` may be absent or empty."""

    max_len: int
    required: bool = True
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        low = 1 if self.required else 0
        yield Field(min_length=low, max_length=self.max_len, description=self.description)
        yield _text(self.max_len, required=self.required)


def content_limit() -> int:
    return int(knobs.value("CTX_MAX_CONTENT_BYTES"))


def search_limit() -> int:
    return int(knobs.value("CTX_SEARCH_MAX_LIMIT"))


Content = Annotated[
    str,
    Field(
        min_length=1,
        max_length=content_limit(),  # characters <= bytes: a safe bound for the schema
        description="The text to keep (Markdown ok).",
    ),
    _check(lambda d, n: v.content(d, n)),
]
OptionalContent = Annotated[
    str | None,
    Field(min_length=1, max_length=content_limit(), description="New text."),
    _check(lambda d, n: v.content(d, n, required=False)),
]
Tags = Annotated[
    list[Annotated[str, Field(max_length=v.MAX_TAG)]],
    Field(max_length=v.MAX_TAGS, description="Lower-case labels for filtering."),
    _check(lambda d, n: v.tags({"tags": d[n]})),
]
Metadata = Annotated[
    dict[str, Any],
    Field(description="Free-form JSON (≤ 16 KB)."),
    _check(lambda d, n: v.metadata({"metadata": d[n]})),
]
When = Annotated[
    datetime | None,
    # What callers send: text (the schema of a datetime would add a format they need not meet).
    WithJsonSchema({"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]}),
    Field(description="ISO-8601 date or datetime, e.g. 2026-03-01."),
    _check(v.timestamp),
]


def _since(data: dict[str, Any], name: str) -> datetime | None:
    text = v.string(data, name, max_len=100, required=False)
    return since_of(text, timezone.now(), name) if text else None


Since = Annotated[
    datetime | None,
    WithJsonSchema({"anyOf": [{"type": "string", "maxLength": 100}, {"type": "null"}]}),
    Field(description="ISO date or time, '2 hours ago', 'yesterday', 'last week', …"),
    _check(_since),
]
TypeName = Annotated[
    str,
    Field(json_schema_extra={"enum": list(BlockType.values)}, description="Kind of block."),
    _check(lambda d, n: v.block_type({"type": d[n]})),
]
SensitivityName = Annotated[
    str | None,
    Field(
        json_schema_extra={"enum": list(Sensitivity.values)},
        description="public < internal < personal < credentials; default internal. "
        "A detector raises it when the text holds secrets or personal data.",
    ),
    _check(lambda d, n: v.sensitivity({"sensitivity": d[n]})),
]
TypeList = Annotated[
    list[Annotated[str, Field(json_schema_extra={"enum": list(BlockType.values)})]],
    Field(max_length=len(BlockType.values), description="Blocks of these types."),
    _check(v.types),
]
TagFilter = Annotated[Tags, Field(description="Only blocks carrying all of these tags.")]
TypeFilter = Annotated[TypeList, Field(description="Only blocks of these types.")]
TypeExclude = Annotated[TypeList, Field(description="Leave out blocks of these types.")]
RoleExclude = Annotated[
    TypeList, Field(description="The design's older name of types_exclude; both given: either.")
]
ScopeList = Annotated[
    list[Annotated[str, Field(max_length=100)]],
    Field(
        max_length=v.MAX_SCOPES,
        description="Scope names to look in; default: every scope this key can read.",
    ),
    _check(lambda d, n: v.string_list(d, n, max_items=v.MAX_SCOPES, max_len=100)),
]
CategoryExclude = Annotated[
    list[Annotated[str, Field(max_length=v.MAX_CATEGORY)]],
    Field(max_length=v.MAX_CATEGORY_EXCLUDES, description="Leave out blocks in these categories."),
    _check(
        lambda d, n: v.string_list(d, n, max_items=v.MAX_CATEGORY_EXCLUDES, max_len=v.MAX_CATEGORY)
    ),
]
BlockId = Annotated[
    str,
    Field(min_length=1, max_length=64, description="A block id from query, search or recent."),
    _check(lambda d, n: v.string(d, n, max_len=64)),
]
ScopeName = Annotated[
    str | None,
    Field(max_length=100, description="Scope to write; default: the key's home scope."),
    _text(100, required=False),
]
CategoryName = Annotated[
    str,
    Field(min_length=1, max_length=v.MAX_CATEGORY, description="Category, e.g. infra, people."),
    _text(v.MAX_CATEGORY),
]
CategoryFilter = Annotated[
    str | None,
    Field(max_length=v.MAX_CATEGORY, description="Only blocks in this category."),
    _text(v.MAX_CATEGORY, required=False),
]
Title = Annotated[
    str,
    Field(min_length=1, max_length=v.MAX_TITLE, description="Block title."),
    _text(v.MAX_TITLE),
]
QueryText = Annotated[
    str,
    Field(min_length=1, max_length=v.MAX_QUERY, description="A question or keywords."),
    _text(v.MAX_QUERY),
]
Limit = Annotated[
    int,
    Field(ge=1, le=search_limit(), description="Most results to return."),
    _int(1, search_limit(), 10),
]
MinScore = Annotated[
    float | None,
    Field(
        ge=0.0,
        le=1.0,
        description="Leave out results scoring below this (0-1; a result's score is its share "
        "of the best result's).",
    ),
    _check(lambda d, n: v.number(d, n, low=0.0, high=1.0)),
]
Source = Annotated[
    str | None,
    Field(max_length=200, description="Where this came from (a URL, a person)."),
    _text(200, required=False),
]


@dataclass(frozen=True)
class OneOf(GroupedMetadata):
    """`Annotated[str, OneOf(("a", "b"))]`: one of the options (an enum in the schema)."""

    options: tuple[str, ...]
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(json_schema_extra={"enum": list(self.options)}, description=self.description)
        yield _check(lambda d, n: v.choice(d, n, self.options))


TenantName = Annotated[str, Text(64, description="A tenant's name.")]
OptionalTenant = Annotated[
    str | None, Text(64, required=False, description="A tenant's name (server admins).")
]


# --- query-string parameters (text on the wire) -------------------------------------------------


def _int_text(name: str, raw: Any, low: int, high: int) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise ValidationFailed(f"'{name}' must be an integer.", details={"field": name})
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValidationFailed(f"'{name}' must be an integer.", details={"field": name}) from None
    return v.integer({name: value}, name, default=value, low=low, high=high)


@dataclass(frozen=True)
class IntParam(GroupedMetadata):
    """An integer that may arrive as text (a query string), within [low, high]."""

    low: int
    high: int
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(ge=self.low, le=self.high, description=self.description)
        yield BeforeValidator(
            lambda raw, info: _int_text(str(info.field_name), raw, self.low, self.high)
        )


def _float_text(name: str, raw: Any, low: float, high: float) -> float | None:
    if raw is None or raw == "":
        return None
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValidationFailed(f"'{name}' must be a number.", details={"field": name}) from None
    if not low <= value <= high:  # NaN fails this too
        raise ValidationFailed(
            f"'{name}' must be between {low:g} and {high:g}.", details={"field": name}
        )
    return value


@dataclass(frozen=True)
class FloatParam(GroupedMetadata):
    low: float
    high: float
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(ge=self.low, le=self.high, description=self.description)
        yield BeforeValidator(
            lambda raw, info: _float_text(str(info.field_name), raw, self.low, self.high)
        )


_TRUTH = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}


def _bool_text(name: str, raw: Any) -> bool:
    """A query string's flag (`?archived=true`) or a JSON boolean (absent: the default)."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUTH:
        return _TRUTH[raw.strip().lower()]
    raise ValidationFailed(f"'{name}' must be true or false.", details={"field": name})


@dataclass(frozen=True)
class BoolParam(GroupedMetadata):
    """true/false from a query string (true, 1, yes / false, 0, no; empty is false) or JSON."""

    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(description=self.description)
        yield BeforeValidator(lambda raw, info: _bool_text(str(info.field_name), raw))


def _choice_text(name: str, raw: Any, options: tuple[str, ...]) -> str | None:
    if raw is None or raw == "":
        return None
    if raw not in options:
        raise ValidationFailed(
            f"'{name}' must be one of {', '.join(options)}.", details={"field": name}
        )
    return str(raw)


@dataclass(frozen=True)
class ChoiceParam(GroupedMetadata):
    """One of `options`, or None when absent or empty."""

    options: tuple[str, ...]
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(json_schema_extra={"enum": list(self.options)}, description=self.description)
        yield BeforeValidator(
            lambda raw, info: _choice_text(str(info.field_name), raw, self.options)
        )
