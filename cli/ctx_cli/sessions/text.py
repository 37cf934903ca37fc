"""Shared helpers: bounded text, timestamps, tool-call summaries, content-block flattening."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

# Bounds. A message's text is cut at MAX_TEXT characters, a tool result (role "tool") at
# MAX_TOOL_TEXT: results are summaries of what a tool printed, not the output itself.
MAX_TEXT = 100_000
MAX_TOOL_TEXT = 2_000
MAX_SUMMARY = 200
MAX_TOOL_CALLS = 50
MAX_TITLE = 300
MAX_META = 200

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$"
)
# Epoch values above this are milliseconds (1e11 seconds is the year 5138).
_MS_THRESHOLD = 100_000_000_000
_MIN_EPOCH = 0
_MAX_EPOCH = 32_503_680_000  # year 3000

# Keys whose value best says what a tool call did, in order of preference.
_ARG_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "absolute_path",
    "notebook_path",
    "target_file",
    "targetFile",
    "relative_workspace_path",
    "pattern",
    "query",
    "url",
    "path",
    "description",
    "prompt",
    "skill",
)


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: drifted fields change type."""
    return value if isinstance(value, dict) else {}


def str_or(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def kind_of(value: Any) -> str:
    """A record's type tag as text: drifting formats put lists or numbers where names were."""
    if isinstance(value, str):
        return value
    return "" if value is None else f"<{type(value).__name__}>"


def bound(text: str, limit: int = MAX_TEXT) -> tuple[str, bool]:
    """The text cut to `limit` characters with a marker saying how much was cut."""
    if len(text) <= limit:
        return text, False
    cut = len(text) - limit
    return f"{text[:limit]}\n[… {cut} more characters truncated by ctx]", True


def clip(value: Any, limit: int = MAX_META) -> str | None:
    """A short single-line string for metadata (titles, branches, model names), or None."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = " ".join(str(value).split())
    return text[:limit] if text else None


def parse_time(value: Any) -> datetime | None:
    """An aware UTC datetime from ISO-8601 text or epoch seconds/milliseconds; None if invalid.

    Written by hand because `datetime.fromisoformat` before Python 3.11 rejects a trailing `Z`
    and fractions other than 3 or 6 digits, both of which the tools write.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.replace(".", "", 1).isdigit():
        return _from_epoch(float(text))
    return _from_iso(text)


def _from_epoch(number: float) -> datetime | None:
    if number != number:  # NaN
        return None
    if abs(number) >= _MS_THRESHOLD:
        number /= 1000.0
    if not _MIN_EPOCH < number < _MAX_EPOCH:
        return None
    return datetime.fromtimestamp(number, tz=timezone.utc)


def _from_iso(text: str) -> datetime | None:
    if len(text) in (20, 24, 27) and text[-1] == "Z" and text[10] == "T":
        # The common shape (`2026-03-01T14:00:00.000Z`): the C parser is several times faster.
        try:
            return datetime.fromisoformat(text[:-1] + "+00:00")
        except ValueError:
            pass
    match = _ISO.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        stamp = datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
            micro, tzinfo=_zone(zone),
        )  # fmt: skip
    except ValueError:
        return None
    return stamp.astimezone(timezone.utc)


def _zone(zone: str | None) -> timezone:
    if not zone or zone in "Zz":
        return timezone.utc  # no offset written: the tools write UTC
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def tool_summary(name: Any, args: Any) -> str:
    """`Bash: ls -la`, `Edit: src/app.py`: the tool's name and its most telling argument."""
    label = clip(name, 80) or "tool"
    if isinstance(args, str):
        args = _maybe_json(args)
    detail = _main_argument(args)
    text = f"{label}: {detail}" if detail else label
    return bound_line(text, MAX_SUMMARY)


def bound_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _maybe_json(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    return stripped


def _main_argument(args: Any) -> str:
    if isinstance(args, str):
        return args
    if isinstance(args, list):
        return _command_line(args)
    if not isinstance(args, dict):
        return ""
    for key in _ARG_KEYS:
        value = args.get(key)
        if isinstance(value, list):
            return _command_line(value)
        if isinstance(value, str) and value.strip():
            return value
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _command_line(parts: list[Any]) -> str:
    words = [str(p) for p in parts if isinstance(p, (str, int, float))]
    # Codex wraps commands as ["bash", "-lc", "<script>"]: the script is what was run.
    if len(words) == 3 and words[1] in ("-c", "-lc") and words[0].endswith("sh"):
        return words[2]
    return " ".join(words)


def join_text(parts: list[str]) -> str:
    return "\n\n".join(p for p in (part.strip() for part in parts) if p)


def stringify(value: Any, limit: int = MAX_TOOL_TEXT) -> str:
    """Plain text from a tool result: a string, text blocks, or compact JSON, bounded."""
    if value is None:
        return ""
    if isinstance(value, str):
        decoded = _maybe_json(value) if value[:1] in "{[" else value
        return value[: limit * 2] if isinstance(decoded, str) else stringify(decoded, limit)
    if isinstance(value, list):
        texts = [_block_text(item) for item in value[:200]]
        return "\n".join(t for t in texts if t)[: limit * 2]
    if isinstance(value, dict):
        text = _block_text(value)
        if text:
            return text[: limit * 2]
    try:
        return json.dumps(value, ensure_ascii=False, default=str)[: limit * 2]
    except (TypeError, ValueError):
        return ""


def _block_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("text", "content", "contents", "output", "value", "stdout"):
            value = item.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list):
                return stringify(value)
        if item.get("type") == "image" or "image_url" in item:
            return "[image]"
    return ""
