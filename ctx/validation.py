"""Strict input validation with bounds and stable messages, shared by every interface."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.timezone import is_naive, make_aware

from ctx import knobs
from ctx.errors import TooLarge, ValidationFailed
from ctx.models import BlockType, Sensitivity

MAX_CATEGORY = 100
MAX_CATEGORY_EXCLUDES = 50  # categories_exclude on search and query
MAX_TITLE = 500
MAX_TAGS = 50
MAX_TAG = 100
MAX_METADATA_BYTES = 16_384
MAX_QUERY = 2_000
MAX_SCOPES = 50
MAX_DEPTH = 32  # nesting of a request's JSON (metadata included); deeper is refused


def clean_tree(data: Any, path: str = "body", depth: int = 0) -> None:
    """Refuse what PostgreSQL or a later encoder cannot take, naming where it is: a NUL
    character or a lone surrogate in any string or key, and nesting deeper than MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise ValidationFailed(
            f"'{path}' is nested deeper than {MAX_DEPTH} levels.", details={"field": path}
        )
    if isinstance(data, str):
        _clean_text(data, path)
    elif isinstance(data, dict):
        for key, value in data.items():
            name = str(key) if depth == 0 else f"{path}.{key}"
            _clean_text(str(key), name)
            clean_tree(value, name, depth + 1)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            clean_tree(value, f"{path}[{i}]", depth + 1)


def _clean_text(text: str, name: str) -> None:
    if "\x00" in text:
        raise ValidationFailed(f"'{name}' contains a NUL character.", details={"field": name})
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (\ud800): no UTF-8 form, nothing can store it
        raise ValidationFailed(
            f"'{name}' contains an unpaired surrogate character.", details={"field": name}
        ) from None


def require_object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValidationFailed("The request body must be a JSON object.")
    return data


def string(
    data: dict[str, Any], name: str, *, max_len: int, required: bool = True, default: str = ""
) -> str:
    value = data.get(name)
    if value is None:
        if required:
            raise ValidationFailed(f"'{name}' is required.", details={"field": name})
        return default
    if not isinstance(value, str):
        raise ValidationFailed(f"'{name}' must be a string.", details={"field": name})
    value = value.strip()
    if required and not value:
        raise ValidationFailed(f"'{name}' must not be empty.", details={"field": name})
    if len(value) > max_len:
        raise ValidationFailed(
            f"'{name}' is longer than {max_len} characters.", details={"field": name}
        )
    return value


def choice(data: dict[str, Any], name: str, options: tuple[str, ...]) -> str | None:
    """One of `options`, or None when absent."""
    value = data.get(name)
    if value is None:
        return None
    if value not in options:
        raise ValidationFailed(
            f"'{name}' must be one of: {', '.join(options)}.", details={"field": name}
        )
    return str(value)


def content(data: dict[str, Any], name: str = "content", *, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed(f"'{name}' must be a non-empty string.", details={"field": name})
    limit = knobs.value("CTX_MAX_CONTENT_BYTES")
    size = len(value.encode("utf-8"))
    if size > limit:
        raise TooLarge(
            f"'{name}' is {size} bytes; the limit is {limit} bytes.",
            details={"field": name, "limit": limit, "size": size},
        )
    return value


def integer(data: dict[str, Any], name: str, *, default: int, low: int, high: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed(f"'{name}' must be an integer.", details={"field": name})
    if not low <= value <= high:
        raise ValidationFailed(
            f"'{name}' must be between {low} and {high}.", details={"field": name}
        )
    return value


def number(data: dict[str, Any], name: str, *, low: float, high: float) -> float | None:
    """A JSON number within [low, high], or None when absent or null."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationFailed(f"'{name}' must be a number.", details={"field": name})
    if not low <= value <= high:  # NaN fails this too
        raise ValidationFailed(
            f"'{name}' must be between {low:g} and {high:g}.", details={"field": name}
        )
    return float(value)


def boolean(data: dict[str, Any], name: str, *, default: bool = False) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise ValidationFailed(f"'{name}' must be true or false.", details={"field": name})
    return value


def string_list(data: dict[str, Any], name: str, *, max_items: int, max_len: int) -> list[str]:
    value = data.get(name)
    if value is None:
        return []
    if isinstance(value, str):  # "a,b" is what people type on a command line
        value = [v for v in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationFailed(f"'{name}' must be a list of strings.", details={"field": name})
    items = [v.strip() for v in value if v.strip()]
    if len(items) > max_items:
        raise ValidationFailed(
            f"'{name}' has more than {max_items} items.", details={"field": name}
        )
    if any(len(v) > max_len for v in items):
        raise ValidationFailed(
            f"each item of '{name}' must be at most {max_len} characters.", details={"field": name}
        )
    return list(dict.fromkeys(items))


def tags(data: dict[str, Any]) -> list[str]:
    return [t.lower() for t in string_list(data, "tags", max_items=MAX_TAGS, max_len=MAX_TAG)]


def block_type(data: dict[str, Any], *, default: str = BlockType.KNOWLEDGE) -> str:
    value = data.get("type", default)
    if value not in BlockType.values:
        raise ValidationFailed(
            f"'type' must be one of {', '.join(BlockType.values)}.", details={"field": "type"}
        )
    return str(value)


def sensitivity(data: dict[str, Any], name: str = "sensitivity") -> str | None:
    """The caller's sensitivity level, or None when not given (the detector may still raise it)."""
    value = data.get(name)
    if value is None:
        return None
    if value not in Sensitivity.values:
        raise ValidationFailed(
            f"'{name}' must be one of {', '.join(Sensitivity.values)}.",
            details={"field": name},
        )
    return str(value)


def types(data: dict[str, Any], name: str) -> list[str]:
    values = string_list(data, name, max_items=len(BlockType.values), max_len=32)
    unknown = [v for v in values if v not in BlockType.values]
    if unknown:
        raise ValidationFailed(
            f"'{name}' has unknown types: {', '.join(unknown)}.", details={"field": name}
        )
    return values


def metadata(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("metadata", {})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationFailed("'metadata' must be a JSON object.", details={"field": "metadata"})
    if len(json.dumps(value)) > MAX_METADATA_BYTES:
        raise TooLarge(
            f"'metadata' is larger than {MAX_METADATA_BYTES} bytes.", details={"field": "metadata"}
        )
    return value


def timestamp(data: dict[str, Any], name: str) -> datetime | None:
    """An ISO-8601 date or datetime that exists (no 2026-02-30, no +99:00) and stays within
    the years 1-9999 in UTC, the range every reader of it can present."""
    value = data.get(name)
    if value is None or value == "":
        return None
    parsed = _parsed(value) if isinstance(value, str) else None
    if parsed is None:
        raise ValidationFailed(
            f"'{name}' must be an ISO-8601 date or datetime.", details={"field": name}
        )
    try:
        aware = make_aware(parsed) if is_naive(parsed) else parsed
        aware.astimezone(UTC)
    except (OverflowError, ValueError):
        raise ValidationFailed(
            f"'{name}' is outside the years 1-9999 in UTC.", details={"field": name}
        ) from None
    return aware


def _parsed(value: str) -> datetime | None:
    """Django's ISO reader, None for a well-formed value naming no real moment."""
    try:
        parsed = parse_datetime(value)
        if parsed is None and len(value) == 10:
            parsed = parse_datetime(value + "T00:00:00")
    except ValueError:  # 2026-13-45, 25:61:61, an offset of +99:00
        return None
    return parsed


def scope_names(data: dict[str, Any]) -> list[str]:
    names = string_list(data, "scopes", max_items=MAX_SCOPES, max_len=100)
    single = data.get("scope")
    if single is not None:
        names.append(string(data, "scope", max_len=100))
    return names
