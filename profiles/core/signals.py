"""A preference signal: one reaction of a user to an agent's answer, validated on creation.

Bounds (the API, MCP, CLI and the folder inbox all go through `Signal`, so they live here
once): note ≤ 2,000 characters, context ≤ 4 KB of UTF-8, ≤ 20 tags of ≤ 50 characters.
Every violation raises `SignalError` naming the field, with a stable message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypedDict, cast

SignalType = Literal["like", "dislike", "tag", "note"]
SIGNAL_TYPES: tuple[SignalType, ...] = ("like", "dislike", "tag", "note")

MAX_NOTE_CHARS = 2_000
MAX_CONTEXT_BYTES = 4_096
MAX_TAGS = 20
MAX_TAG_CHARS = 50
MAX_ID_CHARS = 100
MAX_SOURCE_CHARS = 100


class SignalError(ValueError):
    """A signal field is out of bounds; `field` names it (`note`, `tags[3]`, …)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


class SignalDict(TypedDict):
    id: str
    type: str
    note: str
    tags: list[str]
    context: str
    source: str
    session: str | None
    profile: str
    created_at: str


@dataclass(frozen=True)
class Signal:
    """One reaction. `context` is the excerpt of the answer reacted to; `profile` is the slug
    the signal was sent to (empty: the active profile)."""

    id: str
    type: SignalType
    created_at: datetime
    note: str = ""
    tags: tuple[str, ...] = ()
    context: str = ""
    source: str = ""
    session: str | None = None
    profile: str = ""

    def __post_init__(self) -> None:
        _check_id(self.id)
        _check_type(self.type)
        _check_text("note", self.note, MAX_NOTE_CHARS)
        _check_context(self.context)
        _check_tags(self.tags)
        _check_text("source", self.source, MAX_SOURCE_CHARS)
        if self.session is not None:
            _check_text("session", self.session, MAX_ID_CHARS)
        if self.created_at.tzinfo is None:
            raise SignalError("created_at", "must carry a time zone")
        _check_content(self)

    def to_dict(self) -> SignalDict:
        return {
            "id": self.id,
            "type": self.type,
            "note": self.note,
            "tags": list(self.tags),
            "context": self.context,
            "source": self.source,
            "session": self.session,
            "profile": self.profile,
            "created_at": self.created_at.isoformat(),
        }


def _check_id(value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise SignalError("id", "must be a non-empty string")
    if len(value) > MAX_ID_CHARS:
        raise SignalError("id", f"must be at most {MAX_ID_CHARS} characters")


def _check_type(value: object) -> None:
    if value not in SIGNAL_TYPES:
        raise SignalError("type", f"must be one of {', '.join(SIGNAL_TYPES)}")


def _check_text(name: str, value: object, limit: int) -> None:
    if not isinstance(value, str):
        raise SignalError(name, "must be a string")
    if len(value) > limit:
        raise SignalError(name, f"must be at most {limit} characters")


def _check_context(value: object) -> None:
    if not isinstance(value, str):
        raise SignalError("context", "must be a string")
    # Bytes, not characters: the bound is on what is stored and sent to an LLM.
    if len(value.encode("utf-8")) > MAX_CONTEXT_BYTES:
        raise SignalError("context", f"must be at most {MAX_CONTEXT_BYTES} bytes of UTF-8")


def _check_tags(tags: object) -> None:
    if not isinstance(tags, tuple):
        raise SignalError("tags", "must be a list of strings")
    if len(tags) > MAX_TAGS:
        raise SignalError("tags", f"at most {MAX_TAGS} tags")
    for i, tag in enumerate(tags):
        if not isinstance(tag, str) or not tag.strip():
            raise SignalError(f"tags[{i}]", "must be a non-empty string")
        if len(tag) > MAX_TAG_CHARS:
            raise SignalError(f"tags[{i}]", f"must be at most {MAX_TAG_CHARS} characters")


def _check_content(signal: Signal) -> None:
    """A tag signal without tags, or a note signal without a note, says nothing."""
    if signal.type == "tag" and not signal.tags:
        raise SignalError("tags", "a tag signal needs at least one tag")
    if signal.type == "note" and not signal.note.strip():
        raise SignalError("note", "a note signal needs a note")


def parse_time(value: object, name: str = "created_at") -> datetime:
    """An aware datetime from an ISO-8601 string (a trailing Z is UTC)."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise SignalError(name, "must be an ISO-8601 date and time") from exc
    else:
        raise SignalError(name, "must be an ISO-8601 date and time")
    if moment.tzinfo is None:
        raise SignalError(name, "must carry a time zone")
    return moment


def signal_from_dict(data: object, *, default_id: str = "", now: datetime | None = None) -> Signal:
    """A validated Signal from a JSON object (API body, inbox file, signals.jsonl line).

    `default_id` and `now` fill a missing `id` and `created_at` (the inbox file name carries
    both). Unknown keys are refused: a misspelt field must not pass silently."""
    if not isinstance(data, dict):
        raise SignalError("signal", "must be a JSON object")
    unknown = sorted(set(data) - set(SignalDict.__annotations__))
    if unknown:
        raise SignalError(unknown[0], "is not a signal field")
    tags = data.get("tags", [])
    if not isinstance(tags, list):
        raise SignalError("tags", "must be a list of strings")
    created = data.get("created_at")
    moment = parse_time(created) if created is not None else (now or datetime.now(UTC))
    session = data.get("session")
    return Signal(
        id=cast(str, data.get("id", default_id)),
        type=cast(SignalType, data.get("type")),
        created_at=moment,
        note=cast(str, data.get("note", "")),
        tags=tuple(cast(list[str], tags)),
        context=cast(str, data.get("context", "")),
        source=cast(str, data.get("source", "")),
        session=cast("str | None", session),
        profile=cast(str, data.get("profile", "")),
    )
