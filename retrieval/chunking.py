"""Splitting a block into embedding windows.

all-MiniLM-L6-v2 reads at most 256 word pieces (~180 English words); a longer block embedded
whole is judged by its opening only. Each window gets the title in front, because a window
read alone often does not say what it is about.
"""

from __future__ import annotations

import re

WINDOW_WORDS = 80
MAX_CHUNKS = 128  # 50 KB of text is ~8.5k words: 107 windows of 80; every word is searchable

_BREAKS = re.compile(r"(?<=[.!?])\s+|\n{2,}")


def _pieces(text: str) -> list[str]:
    """Sentences and paragraphs, with over-long ones cut at WINDOW_WORDS words."""
    out: list[str] = []
    for part in _BREAKS.split(text):
        words = part.split()
        for start in range(0, len(words), WINDOW_WORDS):
            out.append(" ".join(words[start : start + WINDOW_WORDS]))
    return [p for p in out if p]


def windows(title: str, content: str) -> list[str]:
    """The texts to embed for one block, in order; never empty."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for piece in _pieces(content):
        n = len(piece.split())
        if current and size + n > WINDOW_WORDS:
            chunks.append(" ".join(current))
            current, size = [], 0
        current.append(piece)
        size += n
    if current or not chunks:
        chunks.append(" ".join(current))
    return [f"{title}\n{chunk}".strip() for chunk in chunks[:MAX_CHUNKS]]
