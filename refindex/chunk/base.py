"""What every chunker shares: the chunk, the size bounds, cutting oversize text, titles."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAX_CHUNK = 4096  # bytes of a chunk's text: a focused unit to search and to show
HARD_MAX = 48 * 1024  # a fenced code block is kept whole up to this (blocks hold 50 KB)
MAX_TITLE = 200  # characters of a chunk title (it is embedded in front of every window)


@dataclass(frozen=True)
class Chunk:
    title: str
    text: str


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def short(title: str, limit: int = MAX_TITLE) -> str:
    flat = " ".join(title.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def hard_split(text: str, limit: int = MAX_CHUNK) -> list[str]:
    """Text cut at line ends into parts of at most `limit` bytes; a longer line is cut at
    spaces, and a longer word at `limit` bytes."""
    parts: list[str] = []
    current: list[str] = []
    used = 0
    for line in _pieces(text.split("\n"), limit):
        cost = size(line) + 1
        if current and used + cost > limit:
            parts.append("\n".join(current))
            current, used = [], 0
        current.append(line)
        used += cost
    if current:
        parts.append("\n".join(current))
    return parts


def _pieces(lines: Iterable[str], limit: int) -> Iterable[str]:
    for line in lines:
        if size(line) < limit:
            yield line
            continue
        yield from _cut_line(line, limit)


def _cut_line(line: str, limit: int) -> Iterable[str]:
    piece = ""
    for word in line.split(" "):
        candidate = f"{piece} {word}" if piece else word
        if size(candidate) < limit:
            piece = candidate
            continue
        if piece:
            yield piece
        while size(word) >= limit:  # one word longer than a chunk: cut by characters
            cut = len(word.encode("utf-8")[: limit - 4].decode("utf-8", "ignore"))
            yield word[:cut]
            word = word[cut:]
        piece = word
    if piece:
        yield piece


def pack(units: Iterable[str], limit: int = MAX_CHUNK, sep: str = "\n\n") -> list[str]:
    """Consecutive units joined while they fit in `limit` bytes; a unit larger than `limit`
    stands alone (the caller decides how to cut it)."""
    out: list[str] = []
    current: list[str] = []
    used = 0
    for unit in units:
        cost = size(unit) + len(sep)
        if current and used + cost > limit:
            out.append(sep.join(current))
            current, used = [], 0
        current.append(unit)
        used += cost
    if current:
        out.append(sep.join(current))
    return out


def unique_titles(chunks: list[Chunk]) -> list[Chunk]:
    """Titles made unique within the document: a repeated one gets " (2)", " (3)"…"""
    seen: dict[str, int] = {}
    taken = {c.title for c in chunks}
    out: list[Chunk] = []
    for c in chunks:
        n = seen.get(c.title, 0) + 1
        seen[c.title] = n
        title = c.title
        while n > 1 and (title := short(f"{c.title} ({n})", MAX_TITLE + 8)) in taken:
            n += 1
        seen[c.title] = n
        taken.add(title)
        out.append(Chunk(title, c.text))
    return out
