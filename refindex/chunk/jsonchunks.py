"""JSON by key paths.

A value whose JSON fits in MAX_CHUNK bytes is one chunk titled by its path (`a > b`, the label
at the root). A larger object is cut by key: its small members are packed together under the
object's path, each large one is cut in turn under its own path. A larger array is cut into
batches of consecutive items that fit, titled by their index range and, when the items are
objects with an identity field (id, name, title, path, slug, key, label), by those values:
`users > [0-4] alice, bob, carol, dave, erin`. An item too large for a batch is cut in turn.
"""

from __future__ import annotations

import json
from typing import Any

from refindex.chunk.base import MAX_CHUNK, Chunk, hard_split, short, size

IDENTITY = ("id", "name", "title", "path", "slug", "key", "label")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def _path(parts: list[str], label: str) -> str:
    return " > ".join(parts) if parts else label


def identity(item: Any) -> str | None:
    """The first identity field of an object item that holds a short scalar."""
    if not isinstance(item, dict):
        return None
    for name in IDENTITY:
        value = item.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value).strip()
            if text and len(text) <= 80:
                return text
    return None


def _batch_title(parts: list[str], label: str, first: int, items: list[Any]) -> str:
    last = first + len(items) - 1
    span = f"[{first}]" if last == first else f"[{first}-{last}]"
    names = [n for n in (identity(i) for i in items) if n is not None]
    head = _path([*parts, span], label)
    return short(f"{head} {', '.join(names)}" if names else head)


def _array(value: list[Any], parts: list[str], label: str, out: list[Chunk]) -> None:
    batch: list[Any] = []
    first, used = 0, 2
    for i, item in enumerate(value):
        cost = size(_dump(item)) + 2
        if cost > MAX_CHUNK:
            if batch:
                out.append(Chunk(_batch_title(parts, label, first, batch), _dump(batch)))
                batch, used = [], 2
            name = identity(item)
            _walk(item, [*parts, f"[{i}]" + (f" {name}" if name else "")], label, out)
            first = i + 1
            continue
        if batch and used + cost > MAX_CHUNK:
            out.append(Chunk(_batch_title(parts, label, first, batch), _dump(batch)))
            batch, used = [], 2
        if not batch:
            first = i
        batch.append(item)
        used += cost
    if batch:
        out.append(Chunk(_batch_title(parts, label, first, batch), _dump(batch)))


def _object(value: dict[str, Any], parts: list[str], label: str, out: list[Chunk]) -> None:
    small: dict[str, Any] = {}
    used = 2
    title = short(_path(parts, label))
    for key, member in value.items():
        cost = size(_dump({key: member}))
        if cost > MAX_CHUNK:
            _walk(member, [*parts, str(key)], label, out)
            continue
        if small and used + cost > MAX_CHUNK:
            out.append(Chunk(title, _dump(small)))
            small, used = {}, 2
        small[key] = member
        used += cost
    if small:
        out.append(Chunk(title, _dump(small)))


def _walk(value: Any, parts: list[str], label: str, out: list[Chunk]) -> None:
    text = _dump(value)
    if size(text) <= MAX_CHUNK:
        out.append(Chunk(short(_path(parts, label)), text))
    elif isinstance(value, list):
        _array(value, parts, label, out)
    elif isinstance(value, dict):
        _object(value, parts, label, out)
    else:  # one string longer than a chunk
        for n, piece in enumerate(hard_split(str(value)), start=1):
            title = _path(parts, label)
            out.append(Chunk(short(title if n == 1 else f"{title} (part {n})"), piece))


def chunk_json(value: Any, label: str) -> list[Chunk]:
    out: list[Chunk] = []
    _walk(value, [], label, out)
    return out
