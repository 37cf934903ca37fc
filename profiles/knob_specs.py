"""Preference profiles' knobs (docs/profiles.md).

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

from ctx.config import Knob, choice, knob

KNOBS: tuple[Knob, ...] = (
    knob(
        "CTX_PROFILES_INTERPRETER",
        "str",
        "auto",
        "Who reads preference signals: auto (the LLM when one is configured, else the rules), "
        "or rules.",
        parse=choice("auto", "rules"),
        live=True,
        tenant=True,
    ),
    knob(
        "CTX_PROFILES_SWEEP_SECONDS",
        "float",
        30.0,
        "Celery beat interval of the sweep that processes signals a lost task left waiting.",
        bounds=(1, 86400),
    ),
    knob(
        "CTX_PROFILES_EXPORT_SIGNALS",
        "int",
        5000,
        "Most recent signals an export writes to signals.jsonl.",
        bounds=(0, 1_000_000),
        live=True,
    ),
)
