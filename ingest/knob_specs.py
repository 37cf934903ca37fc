"""Conversation memory's knobs: transcript windows, import bounds, session search, the hook
event log and the knowledge writes' dedupe thresholds (docs/conversations.md).

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

from ctx.config import Knob, knob

KNOBS: tuple[Knob, ...] = (
    # --- conversations ---------------------------------------------------------------------------
    knob(
        "CTX_SESSION_WINDOW_SIZE",
        "int",
        8,
        "Messages per transcript window (the retrieval unit of imported sessions).",
        bounds=(1, 64),
    ),
    knob(
        "CTX_SESSION_WINDOW_STRIDE",
        "int",
        4,
        "Messages between the starts of two windows (less than the size: they overlap).",
        bounds=(1, 64),
    ),
    knob(
        "CTX_SESSION_WINDOW_MESSAGE_CHARS",
        "int",
        2000,
        "Most characters of a user or system message in a window's text (the message keeps all).",
        bounds=(100, 100000),
    ),
    knob(
        "CTX_SESSION_WINDOW_ASSISTANT_CHARS",
        "int",
        2000,
        "Most characters of an assistant message in a window's text.",
        bounds=(0, 100000),
    ),
    knob(
        "CTX_SESSION_WINDOW_TOOL_CHARS",
        "int",
        300,
        "Most characters of one tool result in a window's text.",
        bounds=(0, 100000),
    ),
    knob(
        "CTX_SESSION_IMPORT_MAX_MESSAGES",
        "int",
        2000,
        "Most messages one import request may carry (more: 413).",
        bounds=(1, 100000),
    ),
    knob(
        "CTX_SESSION_IMPORT_MAX_BYTES",
        "int",
        6_000_000,
        "Most bytes of message text one import request may carry (more: 413).",
        bounds=(1000, 100_000_000),
    ),
    knob(
        "CTX_SESSION_SEARCH_PER_SESSION",
        "int",
        3,
        "Most windows one session contributes to a session search.",
        bounds=(1, 20),
    ),
    knob(
        "CTX_SESSION_EVENTS_MAX",
        "int",
        500,
        "Most hook events kept per session; past it the lowest priority, oldest, are dropped.",
        bounds=(10, 100000),
    ),
    knob(
        "CTX_SESSION_EVENTS_PER_BLOCK",
        "int",
        25,
        "Hook events per searchable event block (a full block is written once).",
        bounds=(1, 500),
    ),
    knob(
        "CTX_SESSION_EVENTS_FLUSH_SECONDS",
        "int",
        300,
        "Most seconds the open event block lags its events (each rewrite re-embeds it).",
        bounds=(0, 86400),
    ),
    knob(
        "CTX_KNOWLEDGE_REJECT_AT",
        "float",
        0.95,
        "save_decision/-error_solution/-insight: cosine from which a new text is a duplicate.",
        bounds=(0, 1),
    ),
    knob(
        "CTX_KNOWLEDGE_SUPERSEDE_AT",
        "float",
        0.85,
        "save_decision/-error_solution/-insight: cosine from which a new text supersedes.",
        bounds=(0, 1),
    ),
    knob(
        "CTX_KNOWLEDGE_EMBED_PENDING",
        "int",
        100,
        "Most not-yet-embedded blocks of a kind embedded at write time to compare a new one.",
        bounds=(0, 10000),
    ),
)
