"""Splitting a block into embedding windows.

all-MiniLM-L6-v2 reads at most 256 word pieces (~180 English words); a longer block embedded
whole is judged by its opening only. Each window gets the title in front, because a window
read alone often does not say what it is about.

A conversation window is cut into sections (runs of three or more newlines, `SECTION_BREAK`
between each `stride` messages, ingest.windows.render) and no piece spans two sections: the
windows of a session overlap, and a section two windows share then gives the same texts in
both, which the embedding step embeds once (retrieval.indexing).
"""

from __future__ import annotations

import re

WINDOW_WORDS = 80
MAX_CHUNKS = 128  # 50 KB of text is ~8.5k words: 107 windows of 80; every word is searchable

_BREAKS = re.compile(r"(?<=[.!?])\s+|\n{2,}")
SECTION_BREAK = "\n\n\n"
_SECTIONS = re.compile(r"\n{3,}")


def _pieces(text: str) -> list[str]:
    """Sentences and paragraphs, with over-long ones cut at WINDOW_WORDS words."""
    out: list[str] = []
    for part in _BREAKS.split(text):
        words = part.split()
        for start in range(0, len(words), WINDOW_WORDS):
            out.append(" ".join(words[start : start + WINDOW_WORDS]))
    return [p for p in out if p]


def windows(title: str, content: str, *, sections: bool = False) -> list[str]:
    """The texts to embed for one block, in order; never empty. With `sections`, a piece
    never spans a run of three newlines."""
    parts = _SECTIONS.split(content) if sections else [content]
    chunks = [chunk for part in parts for chunk in _packed(part)]
    if not chunks:
        chunks = [""]
    return [f"{title}\n{chunk}".strip() for chunk in chunks[:MAX_CHUNKS]]


def _packed(text: str) -> list[str]:
    """The sentences of `text` packed into chunks of at most WINDOW_WORDS words."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for piece in _pieces(text):
        n = len(piece.split())
        if current and size + n > WINDOW_WORDS:
            chunks.append(" ".join(current))
            current, size = [], 0
        current.append(piece)
        size += n
    if current:
        chunks.append(" ".join(current))
    return chunks
