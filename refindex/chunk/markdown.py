"""Markdown by headings H1-H4 and horizontal rules.

A chunk's title is its heading path (`Install > Linux`), the document's label before the first
heading. A fenced code block is one unit: never split, and a heading or rule inside it is text.
A section over MAX_CHUNK bytes is split at paragraph boundaries (its parts titled `… (part 2)`);
a paragraph that is still too large is cut at line ends, a fence only past HARD_MAX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from refindex.chunk.base import HARD_MAX, MAX_CHUNK, Chunk, hard_split, pack, short, size

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
SPLIT_LEVEL = 4  # H1-H4 start a chunk; H5 and H6 stay inside their section


@dataclass
class _Section:
    path: list[str]
    lines: list[str] = field(default_factory=list)
    has_body: bool = False


@dataclass
class _Scan:
    label: str
    sections: list[_Section] = field(default_factory=list)
    stack: list[tuple[int, str]] = field(default_factory=list)
    fence: str = ""  # the open fence's marker, "" outside one

    def current(self) -> _Section:
        if not self.sections:
            self.sections.append(_Section([]))
        return self.sections[-1]

    def open(self, level: int, title: str, line: str) -> None:
        self.stack = [(lv, t) for lv, t in self.stack if lv < level] + [(level, title)]
        self.sections.append(_Section([t for _, t in self.stack], [line]))

    def rule(self) -> None:
        self.sections.append(_Section([t for _, t in self.stack]))


def _fence_toggle(scan: _Scan, line: str) -> bool:
    """Track fences; True when the line opens, closes or lies inside one."""
    found = _FENCE.match(line)
    if scan.fence:
        marker = found.group(1) if found else ""
        closes = marker[:1] == scan.fence[0] and len(marker) >= len(scan.fence)
        if closes and not line.strip().lstrip(marker[0]):
            scan.fence = ""
        return True
    if found:
        scan.fence = found.group(1)
        return True
    return False


def _setext(scan: _Scan, line: str) -> bool:
    """`Title` underlined with === or --- (a heading, not a rule, after a text line)."""
    sec = scan.current()
    found = _SETEXT.match(line)
    if not found or not sec.lines or not sec.lines[-1].strip() or len(sec.lines) < 1:
        return False
    previous = sec.lines[-1]
    if _HEADING.match(previous) or _FENCE.match(previous) or previous.startswith(("    ", "\t")):
        return False
    if len(sec.lines) > 1 and sec.lines[-2].strip():  # a paragraph's last line: CommonMark
        return False  # makes the whole paragraph the heading; we keep it text
    sec.lines.pop()
    scan.open(1 if found.group(1)[0] == "=" else 2, previous.strip(), f"{previous}\n{line}")
    return True


def _scan(content: str, label: str) -> list[_Section]:
    scan = _Scan(label)
    for line in content.split("\n"):
        if _fence_toggle(scan, line):
            sec = scan.current()
            sec.lines.append(line)
            sec.has_body = True
            continue
        heading = _HEADING.match(line)
        if heading and len(heading.group(1)) <= SPLIT_LEVEL:
            scan.open(len(heading.group(1)), heading.group(2).strip() or "(untitled)", line)
        elif _setext(scan, line):
            pass
        elif _RULE.match(line):
            scan.rule()
        else:
            sec = scan.current()
            sec.lines.append(line)
            sec.has_body = sec.has_body or bool(line.strip())
    return [s for s in scan.sections if s.has_body]


def _units(lines: list[str]) -> list[str]:
    """Paragraphs (blank-line separated) with each fenced code block one unit."""
    units: list[str] = []
    current: list[str] = []
    fence = ""
    for line in lines:
        found = _FENCE.match(line)
        if fence:
            current.append(line)
            if found and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence):
                fence = ""
                units.append("\n".join(current))
                current = []
            continue
        if found:
            if current:
                units.append("\n".join(current))
            current, fence = [line], found.group(1)
        elif line.strip():
            current.append(line)
        elif current:
            units.append("\n".join(current))
            current = []
    if current:
        units.append("\n".join(current))
    return units


def _fits(unit: str) -> list[str]:
    """A unit as pieces that fit: a fence whole up to HARD_MAX (then cut and re-fenced),
    other text cut at line ends past MAX_CHUNK."""
    if size(unit) <= MAX_CHUNK:
        return [unit]
    found = _FENCE.match(unit)
    if not found:
        return hard_split(unit)
    if size(unit) <= HARD_MAX:
        return [unit]
    marker = found.group(1)
    opening, _, rest = unit.partition("\n")
    body = rest.rsplit("\n", 1)[0] if rest.rstrip().endswith(marker) else rest
    room = HARD_MAX - size(opening) - len(marker) - 4
    return [f"{opening}\n{part}\n{marker}" for part in hard_split(body, room)]


def _parts(section: _Section) -> list[str]:
    text = "\n".join(section.lines).strip("\n")
    if size(text) <= MAX_CHUNK:
        return [text]
    pieces = [piece for unit in _units(section.lines) for piece in _fits(unit)]
    return pack(pieces)


def chunk_markdown(content: str, label: str) -> list[Chunk]:
    out: list[Chunk] = []
    for section in _scan(content.replace("\r\n", "\n"), label):
        title = short(" > ".join(section.path) or label)
        for n, text in enumerate(_parts(section), start=1):
            out.append(Chunk(title if n == 1 else short(f"{title} (part {n})"), text))
    return out
