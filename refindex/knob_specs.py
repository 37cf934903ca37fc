"""Indexed references' knobs (docs/index.md). Pure data, read before Django starts."""

from __future__ import annotations

from ctx.config import Knob, knob

KNOBS: tuple[Knob, ...] = (
    knob(
        "CTX_INDEX_MAX_BYTES",
        "int",
        10 * 1024 * 1024,
        "Largest document POST /api/index takes, in bytes of UTF-8 (more: 413); "
        "CTX_MAX_BODY_BYTES bounds the whole request first.",
        bounds=(1024, 268435456),
    ),
    knob(
        "CTX_INDEX_ANSWER_CHARS",
        "int",
        40_000,
        "Most characters of snippets one snippet search answers with, all queries together.",
        bounds=(1000, 1_000_000),
    ),
)
