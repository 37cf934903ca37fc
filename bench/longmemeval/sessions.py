"""LongMemEval_S at turn level through conversation import (ingest/): each question's haystack
is uploaded as sessions with `POST /api/sessions/import`, windowed and embedded by the server,
and queried with `POST /api/query`. Pure parts here (tested with literal data); the run is in
bench/longmemeval/sessions_run.py.

Scoring (../shared/notes/measuring.md): the server ranks windows of messages, the gold labels
user turns. Each ranked window expands into the user turns it contains, in order; repeats are
dropped and the list is cut at k by the metrics. A window never counts as more than the turns
it holds, nor as k turns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.longmemeval.bm25 import bm25_scores, word_tokens
from bench.longmemeval.client import iso_utc
from bench.longmemeval.data import RawEntry, parse_date, turn_id
from ingest import windows as w

TOOL = "lme"


@dataclass(frozen=True)
class Window:
    session_id: str
    first: int
    last: int
    text: str = ""


UserTurns = dict[str, set[int]]


def user_turns(entry: RawEntry) -> UserTurns:
    """The positions of the user turns of each haystack session (the labelled units)."""
    found: UserTurns = {}
    for sid, session in zip(entry["haystack_session_ids"], entry["haystack_sessions"], strict=True):
        found.setdefault(sid, set()).update(
            i for i, turn in enumerate(session) if turn["role"] == "user"
        )
    return found


def expand(windows: Iterable[Window], turns: UserTurns) -> list[str]:
    """The user turns the ranked windows contain, in rank order and each window's own order,
    every turn once."""
    out: list[str] = []
    seen: set[str] = set()
    for window in windows:
        for index in range(window.first, window.last + 1):
            if index in turns.get(window.session_id, ()):
                tid = turn_id(window.session_id, index)
                if tid not in seen:
                    seen.add(tid)
                    out.append(tid)
    return out


def import_body(entry: RawEntry, scope: str) -> dict[str, Any]:
    """The haystack as the import's normalised shape: one session per haystack session, its
    messages at their positions, each dated with the session's date (the data has no times
    per turn). A session id repeated in a haystack is sent once."""
    sessions: dict[str, dict[str, Any]] = {}
    haystack = zip(
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    )
    for sid, raw_date, turns in haystack:
        if sid in sessions:
            continue
        stamp = iso_utc(parse_date(raw_date))
        messages = [
            {"index": i, "role": t["role"], "text": t["content"], "timestamp": stamp}
            for i, t in enumerate(turns)
            if t["role"] in ("user", "assistant")
        ]
        sessions[sid] = {"tool": TOOL, "external_id": sid, "messages": messages}
    return {"scope": scope, "sessions": list(sessions.values())}


def windows_of(source: dict[str, Any]) -> Window | None:
    """The window a /api/query source is (its metadata), or None for another block."""
    meta = source.get("metadata") or {}
    if "external_id" not in meta or "first_index" not in meta:
        return None
    return Window(str(meta["external_id"]), int(meta["first_index"]), int(meta["last_index"]))


# --- the same windows, locally, for BM25 over windows ------------------------------------------


def local_windows(entry: RawEntry, limits: w.Limits) -> list[Window]:
    """The windows the server cuts (ingest.windows) with their texts."""
    out: list[Window] = []
    seen: set[str] = set()
    for sid, turns in zip(entry["haystack_session_ids"], entry["haystack_sessions"], strict=True):
        if sid in seen:
            continue
        seen.add(sid)
        lines = [w.Line(i, t["role"], t["content"]) for i, t in enumerate(turns)]
        position = {line.index: p for p, line in enumerate(lines)}
        for first, last in w.spans([line.index for line in lines], limits.size, limits.stride):
            chunk = lines[position[first] : position[last] + 1]
            out.append(Window(sid, first, last, w.render(chunk, limits)))
    return out


def bm25_windows(question: str, windows: Sequence[Window]) -> list[Window]:
    scores = bm25_scores(word_tokens(question), [word_tokens(x.text) for x in windows])
    order = sorted(range(len(windows)), key=lambda i: -scores[i])  # stable: ties keep order
    return [windows[i] for i in order]
