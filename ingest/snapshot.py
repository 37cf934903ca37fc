"""The resume snapshot (pure: no Django): where a session stood, in at most `max_bytes` bytes
of UTF-8 Markdown, built from its hook events, for the host to inject after it compacted its
context (`ctx hook record` at SessionStart with source `compact`).

Sections, in this order, each only when it has lines: the last request, rules and decisions,
tasks, files (edited or read, most recent first), errors, git, subagents. Every line carries a
priority (its event kind's, ingest.events.PRIORITY; the last request ranks with decisions, an
open task above a finished one, an edited file above a read one). Until the text fits, the line
of the lowest priority goes, the oldest of a priority first. The same events always give the
same text: nothing in it depends on the clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ingest.events import PRIORITY, Line

SECTIONS = (
    ("prompt", "Last request"),
    ("rules", "Rules and decisions"),
    ("tasks", "Tasks"),
    ("files", "Files"),
    ("errors", "Errors"),
    ("git", "Git"),
    ("subagents", "Subagents"),
)
MOST = {"rules": 10, "tasks": 20, "files": 15, "errors": 5, "git": 5, "subagents": 3}
LINE_CHARS = 200
PROMPT_CHARS = 400
TASK_MARK = {"completed": "[x]", "in_progress": "[~]"}
TASK_PRIORITY = {"completed": 2}  # an open task keeps the task kind's priority


@dataclass(frozen=True)
class Item:
    section: str
    text: str
    priority: int
    seq: int  # the event it came from: older goes first within a priority
    position: int = 0  # its place in its section (tasks: the list's order)


@dataclass(frozen=True)
class Head:
    tool: str
    external_id: str
    project: str = ""
    events: int = 0
    dropped: int = 0  # events the per-session cap dropped


@dataclass(frozen=True)
class Snapshot:
    markdown: str
    lines: int  # item lines kept
    omitted: int  # item lines left out to fit


def _flat(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _latest(events: Sequence[Line], kinds: tuple[str, ...], most: int) -> list[Line]:
    found = [e for e in events if e.kind in kinds]
    return found[-most:]


def _prompt(events: Sequence[Line]) -> list[Item]:
    last = _latest(events, ("user_prompt", "rule"), 1)
    top = PRIORITY["decision"]
    return [Item("prompt", f"> {_flat(e.text, PROMPT_CHARS)}", top, e.seq) for e in last]


def _rules(events: Sequence[Line]) -> list[Item]:
    found = _latest(events, ("rule", "decision"), MOST["rules"])
    return [Item("rules", f"- {_flat(e.text, LINE_CHARS)}", PRIORITY[e.kind], e.seq) for e in found]


def _todos(event: Line) -> list[dict[str, Any]]:
    todos = event.data.get("todos")
    return [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []


def _tasks(events: Sequence[Line]) -> list[Item]:
    """The latest task list (each task event carries the whole list), or the latest tasks."""
    found = _latest(events, ("task",), MOST["tasks"])
    if not found:
        return []
    todos = _todos(found[-1])
    if not todos:
        return [
            Item("tasks", f"- {_flat(e.text, LINE_CHARS)}", PRIORITY["task"], e.seq) for e in found
        ]
    items = []
    for n, todo in enumerate(todos[: MOST["tasks"]]):
        status = str(todo.get("status") or "pending")
        mark = TASK_MARK.get(status, "[ ]")
        text = _flat(str(todo.get("content") or ""), LINE_CHARS)
        priority = TASK_PRIORITY.get(status, PRIORITY["task"])
        items.append(Item("tasks", f"- {mark} {text}", priority, found[-1].seq, n))
    return items


def _files(events: Sequence[Line]) -> list[Item]:
    """Each file once, most recently touched first; edited if it was edited at all. Edited
    files are chosen before files only read."""
    latest: dict[str, int] = {}
    edited: set[str] = set()
    for e in events:
        if e.kind not in ("file_read", "file_edit"):
            continue
        path = str(e.data.get("path") or e.text)
        latest[path] = e.seq
        if e.kind == "file_edit":
            edited.add(path)
    chosen = sorted(latest, key=lambda p: (p not in edited, -latest[p]))[: MOST["files"]]
    recent = sorted(chosen, key=lambda p: -latest[p])
    return [
        Item(
            "files",
            f"- {'edited' if p in edited else 'read'} `{_flat(p, LINE_CHARS)}`",
            PRIORITY["file_edit" if p in edited else "file_read"],
            latest[p],
            n,
        )
        for n, p in enumerate(recent)
    ]


def _simple(events: Sequence[Line], kind: str, section: str) -> list[Item]:
    found = _latest(events, (kind,), MOST[section])
    return [Item(section, f"- {_flat(e.text, LINE_CHARS)}", PRIORITY[kind], e.seq) for e in found]


def items(events: Sequence[Line]) -> list[Item]:
    """Every line the snapshot could hold, before fitting."""
    return [
        *_prompt(events),
        *_rules(events),
        *_tasks(events),
        *_files(events),
        *_simple(events, "error", "errors"),
        *_simple(events, "git", "git"),
        *_simple(events, "subagent", "subagents"),
    ]


def _header(head: Head) -> str:
    where = f" · project `{head.project}`" if head.project else ""
    dropped = f" ({head.dropped} older dropped)" if head.dropped else ""
    return (
        "## Resume snapshot (ctx)\n\n"
        f"Session `{head.tool}:{head.external_id}`{where} · {head.events} events{dropped}. "
        "Where the work stood before the context was compacted:"
    )


def render(head: Head, kept: Sequence[Item], omitted: int) -> str:
    parts = [_header(head)]
    for key, title in SECTIONS:
        lines = [i.text for i in kept if i.section == key]
        if lines:
            parts.append(f"### {title}\n" + "\n".join(lines))
    if omitted:
        parts.append(f"_{omitted} lower-priority lines left out to fit._")
    return "\n\n".join(parts) + "\n"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _cut(text: str, max_bytes: int) -> str:
    return text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")


def build(head: Head, events: Sequence[Line], max_bytes: int) -> Snapshot:
    """The snapshot of these events (oldest first) in at most `max_bytes` bytes."""
    every = items(events)
    order = sorted(range(len(every)), key=lambda i: (every[i].priority, every[i].seq, -i))
    gone: set[int] = set()
    text = render(head, every, 0)
    for index in order:
        if _size(text) <= max_bytes:
            break
        gone.add(index)
        kept = [item for i, item in enumerate(every) if i not in gone]
        text = render(head, kept, len(gone))
    if _size(text) > max_bytes:  # the header alone is longer (a very small limit)
        text = _cut(text, max_bytes)
    return Snapshot(markdown=text, lines=len(every) - len(gone), omitted=len(gone))
