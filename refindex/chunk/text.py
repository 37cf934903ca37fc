"""Plain text by blank-line sections, or by 20-line windows where there are none.

Consecutive sections are packed into chunks of at most MAX_CHUNK bytes, each titled by its
first line; a section larger than that, and a text without blank lines (a log), is cut into
windows of 20 lines that overlap by 5, so a hit near a window's edge keeps its context.
"""

from __future__ import annotations

import re

from refindex.chunk.base import MAX_CHUNK, Chunk, hard_split, pack, short, size

WINDOW = 20
OVERLAP = 5
_BLANK = re.compile(r"\n[ \t]*\n")


def _title(text: str, label: str) -> str:
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return short(f"{label}: {first}", 120)


def windows(lines: list[str]) -> list[str]:
    """20-line windows starting every 15 lines (the last one ends at the last line), each cut
    again if its lines are long."""
    if len(lines) <= WINDOW:
        starts = [0]
    else:
        starts = list(range(0, len(lines) - WINDOW + 1, WINDOW - OVERLAP))
        if starts[-1] + WINDOW < len(lines):
            starts.append(len(lines) - WINDOW)
    out: list[str] = []
    for start in starts:
        text = "\n".join(lines[start : start + WINDOW])
        out.extend([text] if size(text) <= MAX_CHUNK else hard_split(text))
    return out


def chunk_text(content: str, label: str) -> list[Chunk]:
    text = content.replace("\r\n", "\n").strip("\n")
    sections = [s.strip("\n") for s in _BLANK.split(text) if s.strip()]
    if len(sections) < 2:
        parts = windows(text.split("\n"))
    else:
        pieces: list[str] = []
        for section in sections:
            if size(section) <= MAX_CHUNK:
                pieces.append(section)
            else:
                pieces.extend(windows(section.split("\n")))
        parts = pack(pieces)
    return [Chunk(_title(part, label), part) for part in parts if part.strip()]
