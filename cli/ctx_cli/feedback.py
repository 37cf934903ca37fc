"""ChatGPT's thumbs up/down (`message_feedback.json` of a data export) as preference signals.

Each entry: `rating` thumbsUp → like, thumbsDown → dislike; `content` is a JSON string with
`tags` (["not-helpful", …]) and, when the user wrote one, `text` (the note). The answer that
was rated is looked up in the export's `conversations.json` (same ZIP, or beside the file) and
sent as the signal's context, cut to the 4 KB bound. The signal id is `chatgpt:<feedback id>`:
importing the same export twice stores each signal once.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from ctx_cli.sessions.exports import conversations
from ctx_cli.sessions.files import FileProblem, open_export
from ctx_cli.sessions.model import Drift

FEEDBACK = "message_feedback.json"
CONVERSATIONS = "conversations.json"
RATINGS = {"thumbsup": "like", "thumbsdown": "dislike"}
MAX_CONTEXT_BYTES = 4096
MAX_NOTE, MAX_TAGS, MAX_TAG, MAX_ID = 2000, 20, 50, 100


class Parsed(NamedTuple):
    signals: list[dict[str, Any]]
    skipped: list[str]  # why entries were left out (no rating we know, not an object)


def locate(path: Path) -> tuple[Path, Path | None]:
    """(where the feedback is, where the conversations are, if anywhere) for a ZIP export, an
    unpacked export folder, or the feedback file itself."""
    if path.is_dir():
        convos = path / CONVERSATIONS
        return path / FEEDBACK, convos if convos.is_file() else None
    if zipfile.is_zipfile(path):
        return path, path
    convos = path.with_name(CONVERSATIONS)
    return path, convos if convos.is_file() else None


def read_entries(path: Path) -> list[Any]:
    try:
        with open_export(path, FEEDBACK) as stream:
            data = json.loads(stream.read().decode("utf-8"))
    except (FileProblem, OSError, ValueError) as exc:
        raise ValueError(f"cannot read {FEEDBACK} from {path}: {exc}") from None
    if not isinstance(data, list):
        raise ValueError(f"{FEEDBACK} in {path} is not a JSON list")
    return data


def parse(entries: list[Any]) -> Parsed:
    signals, skipped = [], []
    for n, entry in enumerate(entries):
        signal = _signal(entry)
        if isinstance(signal, str):
            skipped.append(f"entry {n + 1}: {signal}")
        else:
            signals.append(signal)
    return Parsed(signals, skipped)


def _signal(entry: Any) -> dict[str, Any] | str:
    if not isinstance(entry, dict):
        return "not a JSON object"
    kind = RATINGS.get(str(entry.get("rating", "")).lower())
    if kind is None:
        return f"rating {entry.get('rating')!r} is neither thumbsUp nor thumbsDown"
    key = entry.get("id") or entry.get("message_id")
    if not isinstance(key, str) or not key:
        return "no id or message_id"
    content = _content(entry.get("content"))
    signal: dict[str, Any] = {
        "id": f"chatgpt:{key}"[:MAX_ID],
        "type": kind,
        "note": str(content.get("text") or "")[:MAX_NOTE],
        "tags": _tags(content.get("tags")),
        "source": "chatgpt",
        "session": str(entry.get("conversation_id") or "")[:MAX_ID],
    }
    when = _time(entry.get("create_time") or entry.get("created_at"))
    if when:
        signal["created_at"] = when
    message = entry.get("message_id")
    if isinstance(message, str):
        signal["_message"] = message  # looked up in the conversations, then dropped
    return signal


def _content(raw: Any) -> dict[str, Any]:
    """`content` is a JSON object encoded as a string (sometimes an object already)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {"text": raw}
    return raw if isinstance(raw, dict) else {}


def _tags(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    tags = [str(t).strip()[:MAX_TAG] for t in raw if str(t).strip()]
    return list(dict.fromkeys(tags))[:MAX_TAGS]


def _time(raw: Any) -> str | None:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return datetime.fromtimestamp(float(raw), timezone.utc).isoformat()
    if isinstance(raw, str) and raw.strip():
        try:
            moment = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).isoformat()
    return None


# --- the rated answers ----------------------------------------------------------------------


def _message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return ""
    return "\n".join(p for p in parts if isinstance(p, str)).strip()


def _messages(convos: Path) -> Iterator[tuple[str, str]]:
    for conversation in conversations(convos, Drift()):
        mapping = conversation.get("mapping")
        for node in (mapping or {}).values() if isinstance(mapping, dict) else ():
            message = node.get("message") if isinstance(node, dict) else None
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                yield message["id"], _message_text(message)


def clip(text: str, limit: int = MAX_CONTEXT_BYTES) -> str:
    """At most `limit` bytes of UTF-8, cut at a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def add_context(signals: list[dict[str, Any]], convos: Path | None) -> int:
    """Fill each signal's context with the rated answer; how many were found."""
    wanted = {s.pop("_message"): s for s in signals if "_message" in s}
    if convos is None or not wanted:
        return 0
    found = 0
    try:
        for message_id, text in _messages(convos):
            signal = wanted.get(message_id)
            if signal is not None and text:
                signal["context"] = clip(text)
                found += 1
    except (FileProblem, OSError, ValueError):
        return found  # the conversations are a bonus: the ratings go in without them
    return found
