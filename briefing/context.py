"""The context block for a system prompt: a few cited lines of what ctx knows, within a budget.

Sections, in the order they are printed: corrections of the last 7 days (always first: an
agent must not repeat what the user just corrected), the standing profile (preferences and
facts about the user), active projects with their status, recent decisions, open tasks and
blockers, relevant people, other facts. Each candidate block scores

    agent weight of its section * recency * confidence * relevance to the project

recency halves after the section's half-life (a preference stands for months, a decision is
news for two weeks); confidence is the block's `metadata.confidence` when the extractor set
one, its `quality` otherwise; relevance is 1 for a block that names the project (metadata
`project`, a tag, the title or the text) or for every block when no project is given, and
RELEVANCE_OTHER otherwise. Lines are taken best first while they fit the budget, counted in
real tokens (briefing/tokens.py); the text is checked once more as a whole and can never be
longer than `max_tokens`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from briefing import tokens
from briefing.candidates import Candidate, fetch
from ctx.models import BlockType
from ctx.sensitivity import PERSONAL

AGENTS = ("general", "code", "meeting", "task")
SECTIONS = ("corrections", "profile", "projects", "decisions", "tasks", "people", "facts")
TITLES = {
    "corrections": "Corrections (last 7 days)",
    "profile": "Profile",
    "projects": "Projects",
    "decisions": "Recent decisions",
    "tasks": "Open tasks and blockers",
    "people": "People",
    "facts": "Facts",
}
# How much each agent cares about each section (corrections are always in, unweighted).
WEIGHTS: dict[str, dict[str, float]] = {
    "general": {"profile": 1.0, "projects": 0.8, "decisions": 0.8, "tasks": 0.7, "people": 0.6},
    "code": {"profile": 1.0, "projects": 0.9, "decisions": 0.9, "tasks": 0.8, "people": 0.3},
    "meeting": {"profile": 0.6, "projects": 0.9, "decisions": 0.8, "tasks": 0.8, "people": 1.0},
    "task": {"profile": 0.6, "projects": 0.8, "decisions": 0.8, "tasks": 1.0, "people": 0.4},
}
FACTS_WEIGHT = 0.5  # facts not about the user, in every agent's view
HALF_LIFE_DAYS = {
    "profile": 120.0,
    "projects": 30.0,
    "decisions": 14.0,
    "tasks": 14.0,
    "people": 60.0,
    "facts": 30.0,
}
RELEVANCE_OTHER = 0.35
CORRECTION_DAYS = 7
LINE_CHARS = 220
DONE = ("done", "closed", "resolved", "cancelled", "completed")
MIN_LINE_TOKENS = 6  # below this much room left no line fits: stop looking
MAX_MISSES = 40  # lines in a row that did not fit: the rest will not either, mostly
COUNT_BATCH = 48


@dataclass(frozen=True)
class Request:
    scope_ids: list[int]
    agent: str
    project: str | None
    max_tokens: int
    now: datetime
    ceiling: str = PERSONAL  # the caller's read ceiling: text above it is masked


@dataclass
class Line:
    section: str
    block: Candidate
    text: str
    score: float
    tokens: int = 0


@dataclass
class Context:
    text: str
    tokens: int
    lines: list[Line] = field(default_factory=list)
    candidates: int = 0


# --- candidates ---------------------------------------------------------------------------------

FACT_TYPES = [BlockType.FACT, BlockType.PREFERENCE, BlockType.DECISION, BlockType.TASK]


def candidates(req: Request) -> list[Candidate]:
    """The newest blocks of every memory type, those naming the project and the recent
    corrections (briefing/candidates.py)."""
    return fetch(req.scope_ids, req.project, req.now, CORRECTION_DAYS, req.ceiling)


# --- classification and scoring -----------------------------------------------------------------


def _meta(block: Candidate, name: str) -> Any:
    return block.metadata.get(name) if isinstance(block.metadata, dict) else None


def _entity_kind(block: Candidate) -> str:
    kind = _meta(block, "entity_type") or _meta(block, "kind") or ""
    return str(kind).lower()


def section_of(block: Candidate, now: datetime) -> str | None:
    """The section a block belongs in, None when it belongs in none (a closed task, a place)."""
    if block.type in FACT_TYPES and _is_correction(block, now):
        return "corrections"
    if block.type == BlockType.PREFERENCE:
        return "profile"
    if block.type == BlockType.FACT:
        return "profile" if str(_meta(block, "subject") or "user") == "user" else "facts"
    if block.type == BlockType.DECISION:
        return "decisions"
    if block.type == BlockType.TASK:
        return None if str(_meta(block, "status") or "").lower() in DONE else "tasks"
    if block.type == BlockType.ENTITY:
        return {"project": "projects", "person": "people"}.get(_entity_kind(block))
    return None


def _is_correction(block: Candidate, now: datetime) -> bool:
    recent = block.updated_at >= now - timedelta(days=CORRECTION_DAYS)
    return recent and (_meta(block, "corrects") is True or "correction" in block.tags)


def confidence(block: Candidate) -> float:
    value = _meta(block, "confidence")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return float(block.quality)


def names_project(block: Candidate, project: str) -> bool:
    needle = project.lower()
    if str(_meta(block, "project") or "").lower() == needle:
        return True
    if needle in (t.lower() for t in block.tags) or f"project:{needle}" in block.tags:
        return True
    return needle in block.title.lower() or needle in block.content.lower()


def score(block: Candidate, section: str, req: Request) -> float:
    if section == "corrections":
        return 10.0 + block.updated_at.timestamp() / 1e12  # above all else, newest first
    weight = FACTS_WEIGHT if section == "facts" else WEIGHTS[req.agent][section]
    age = max(0.0, (req.now - block.updated_at).total_seconds() / 86400)
    recency = math.pow(0.5, age / HALF_LIFE_DAYS[section])
    relevant = section == "profile" or not req.project or names_project(block, req.project)
    return weight * recency * confidence(block) * (1.0 if relevant else RELEVANCE_OTHER)


# --- rendering ----------------------------------------------------------------------------------

_SPACE = re.compile(r"\s+")


def _short(text: str, limit: int = LINE_CHARS) -> str:
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def line_text(block: Candidate, section: str) -> str:
    """One line: what the block says, and its id's first 8 characters (every ctx interface
    takes the start of an id)."""
    cite = f"[{str(block.id)[:8]}]"
    if section == "projects":
        status = _meta(block, "status")
        body = f"{block.title}" + (f" ({status})" if status else "")
        extra = _short(block.content, 120) if block.content else ""
        return f"- {body}: {extra} {cite}" if extra else f"- {body} {cite}"
    if section == "people":
        return f"- {block.title}: {_short(block.content, 140)} {cite}"
    if section == "tasks" and _meta(block, "blocker"):
        return f"- BLOCKER: {_short(block.content or block.title)} {cite}"
    return f"- {_short(block.content or block.title)} {cite}"


def header(req: Request) -> str:
    project = f" · project {req.project}" if req.project else ""
    return f"# ctx context · agent {req.agent}{project} · {req.now.date().isoformat()}"


def rank(req: Request, blocks: Iterable[Candidate]) -> list[Line]:
    lines = []
    for block in blocks:
        section = section_of(block, req.now)
        if section is not None:
            lines.append(Line(section, block, "", score(block, section, req)))
    lines.sort(key=lambda ln: (-ln.score, str(ln.block.id)))
    return lines


@lru_cache(maxsize=len(SECTIONS))
def _heading_tokens(section: str) -> int:
    return tokens.count(f"## {TITLES[section]}")


def _counted(ranked: list[Line]) -> Iterator[Line]:
    """The lines with their token counts, counted a batch at a time (one call into the
    tokenizer per batch; most requests need only the first)."""
    for start in range(0, len(ranked), COUNT_BATCH):
        batch = ranked[start : start + COUNT_BATCH]
        for line in batch:  # written here: most candidates are never looked at
            line.text = line_text(line.block, line.section)
        for line, n in zip(batch, tokens.count_many([ln.text for ln in batch]), strict=True):
            line.tokens = n
            yield line


def fill(req: Request, ranked: list[Line]) -> list[Line]:
    """The best lines that fit the budget with their section headings (greedy, best first)."""
    room = req.max_tokens - tokens.count(header(req))
    taken: list[Line] = []
    opened: set[str] = set()
    misses = 0
    for line in _counted(ranked):
        if room < MIN_LINE_TOKENS or misses >= MAX_MISSES:
            break
        heading = 0 if line.section in opened else _heading_tokens(line.section)
        if line.tokens + heading <= room:
            taken.append(line)
            opened.add(line.section)
            room -= line.tokens + heading
            misses = 0
        else:
            misses += 1
    return taken


def render(req: Request, taken: list[Line]) -> str:
    parts = [header(req)]
    for section in SECTIONS:
        lines = [ln for ln in taken if ln.section == section]
        if lines:
            parts.append(f"## {TITLES[section]}")
            parts.extend(ln.text for ln in lines)
    return "\n".join(parts)


def build(req: Request) -> Context:
    """The context text for the request, never over its budget."""
    blocks = candidates(req)
    taken = fill(req, rank(req, blocks))
    text = render(req, taken)
    total = tokens.count(text)
    while total > req.max_tokens and taken:  # cannot happen (counts add up); never send it
        taken.pop()
        text = render(req, taken)
        total = tokens.count(text)
    if total > req.max_tokens:  # even the heading does not fit
        text, total = "", 0
    return Context(text=text, tokens=total, lines=taken, candidates=len(blocks))
