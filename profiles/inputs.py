"""Field types of the profile operations' inputs. Sizes over a signal's bounds (and over the
bounds of a batch, an inbox file, an imported folder) answer 413 `TooLarge`; other bad values
400 `ValidationFailed`, both naming the field."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import GroupedMetadata
from pydantic import BeforeValidator, Field
from pydantic import ValidationInfo as Info

from ctx.errors import NotFound, TooLarge, ValidationFailed
from ctx.ops.inputs import Text
from profiles.core.profile import MAX_HINT_CHARS, SLUG
from profiles.core.publish import HASH_CHARS
from profiles.core.signals import (
    MAX_CONTEXT_BYTES,
    MAX_ID_CHARS,
    MAX_NOTE_CHARS,
    MAX_SOURCE_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from profiles.selectors import NOT_FOUND_MESSAGE, PUBLICATION_NOT_FOUND


def _bad(name: str, message: str) -> ValidationFailed:
    return ValidationFailed(message, details={"field": name})


def _too_large(name: str, message: str) -> TooLarge:
    return TooLarge(message, details={"field": name})


def _run(check: Callable[[str, Any], Any]) -> BeforeValidator:
    return BeforeValidator(lambda value, info: check(str(info.field_name), value))


@dataclass(frozen=True)
class Sized(GroupedMetadata):
    """`Annotated[str, Sized(2000)]`: a string of at most 2,000 characters (or `in_bytes` of
    UTF-8), kept as given; longer → 413."""

    limit: int
    in_bytes: bool = False
    description: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield Field(max_length=self.limit, description=self.description)
        yield _run(self.check)

    def check(self, name: str, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise _bad(name, f"'{name}' must be a string.")
        size = len(value.encode("utf-8")) if self.in_bytes else len(value)
        if size > self.limit:
            unit = "bytes of UTF-8" if self.in_bytes else "characters"
            raise _too_large(name, f"'{name}' is longer than {self.limit} {unit}.")
        return value


def _tags(name: str, value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise _bad(name, f"'{name}' must be a list of strings.")
    if len(value) > MAX_TAGS:
        raise _too_large(name, f"'{name}' has more than {MAX_TAGS} items.")
    for i, tag in enumerate(value):
        if not tag.strip():
            raise _bad(f"{name}[{i}]", f"'{name}[{i}]' must not be empty.")
        if len(tag) > MAX_TAG_CHARS:
            raise _too_large(
                f"{name}[{i}]", f"'{name}[{i}]' is longer than {MAX_TAG_CHARS} characters."
            )
    return [t.strip() for t in value]


def _slug(name: str, value: Any) -> str:
    if not isinstance(value, str) or not SLUG.match(value):
        raise _bad(name, f"'{name}' must be 1-63 lowercase letters, digits or dashes.")
    return value


def _path_slug(name: str, value: Any) -> str:
    """A slug from the URL: anything that cannot be one is a missing profile (404)."""
    if not isinstance(value, str) or not SLUG.match(value):
        raise NotFound(NOT_FOUND_MESSAGE)
    return value


def _optional_slug(name: str, value: Any) -> str | None:
    return None if value in (None, "") else _slug(name, value)


def _hash(name: str, value: Any) -> str:
    text = value if isinstance(value, str) else ""
    if len(text) != HASH_CHARS or any(c not in "0123456789abcdef" for c in text):
        raise NotFound(PUBLICATION_NOT_FOUND)
    return text


def list_of(limit: int, what: str) -> BeforeValidator:
    """A non-empty list of at most `limit` items; more → 413."""

    def check(value: Any, info: Info) -> list[Any]:
        name = str(info.field_name)
        if not isinstance(value, list) or not value:
            raise _bad(name, f"'{name}' must be a non-empty list of {what}.")
        if len(value) > limit:
            raise _too_large(name, f"'{name}' has more than {limit} items.")
        return value

    return BeforeValidator(check)


SlugPath = Annotated[str, Field(description="The profile's slug."), _run(_path_slug)]
NewSlug = Annotated[
    str,
    Field(min_length=1, max_length=63, description="1-63 lowercase letters, digits, dashes."),
    _run(_slug),
]
ProfileSlug = Annotated[
    str | None,
    Field(max_length=63, description="A profile's slug; default: the active profile."),
    _run(_optional_slug),
]
HashPath = Annotated[str, Field(description="A publication's hash."), _run(_hash)]
Note = Annotated[str, Sized(MAX_NOTE_CHARS, description="What the user said about the answer.")]
Excerpt = Annotated[
    str,
    Sized(
        MAX_CONTEXT_BYTES,
        in_bytes=True,
        description="The excerpt of the answer reacted to (≤ 4 KB of UTF-8).",
    ),
]
SignalTags = Annotated[
    list[Annotated[str, Field(max_length=MAX_TAG_CHARS)]],
    Field(max_length=MAX_TAGS, description="Labels such as style or no-emoji."),
    _run(_tags),
]
SourceName = Annotated[str, Sized(MAX_SOURCE_CHARS, description="The tool the answer came from.")]
SessionId = Annotated[str, Sized(MAX_ID_CHARS, description="The conversation or session id.")]
SignalId = Annotated[
    str, Sized(MAX_ID_CHARS, description="Your id for the signal; a repeated id is stored once.")
]
Hint = Annotated[
    str | None,
    Text(MAX_HINT_CHARS, required=False, description="Appended to what the LLM reads."),
]
