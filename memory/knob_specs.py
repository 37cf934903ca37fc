"""Memory formation's knobs: extraction on or off per tenant, and its bounds (docs/memory.md).

Pure data, read before Django starts (ctx.config collects every app's KNOBS).
"""

from __future__ import annotations

from ctx.config import Knob, choice, knob

KNOBS: tuple[Knob, ...] = (
    knob(
        "CTX_EXTRACTION",
        "str",
        "rules",
        "Fact and entity extraction after a block or session is written: `rules` (the "
        "deterministic extractor, no LLM), `llm` (the configured LLM, JSON-schema constrained, "
        "every item's quote checked against its message; the rules without an LLM) or `off`.",
        parse=choice("rules", "llm", "off"),
        live=True,
        tenant=True,
    ),
    knob(
        "CTX_EXTRACTION_MIN_CONFIDENCE",
        "float",
        0.5,
        "Extracted facts below this confidence are not stored.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    knob(
        "CTX_EXTRACTION_MAX_MESSAGES",
        "int",
        5000,
        "Most messages of one session read by one extraction (the latest ones).",
        bounds=(1, 100000),
    ),
)
