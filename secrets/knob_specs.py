"""Sealed secrets' knobs: the master keys (docs/secrets.md).

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

from ctx.config import Knob, knob, parse_hex_key

KNOBS: tuple[Knob, ...] = (
    # Sealed secrets (secrets/, docs/secrets.md). Keys are 64 hex chars, set inline or by file.
    knob(
        "CTX_SECRETS_KEY",
        "str",
        "",
        "Master key of sealed secrets (64 hex chars); required once a secret exists.",
        secret=True,
        parse=parse_hex_key,
    ),
    knob(
        "CTX_SECRETS_KEY_FILE",
        "str",
        "",
        "File holding CTX_SECRETS_KEY (64 hex chars); set this or CTX_SECRETS_KEY, not both.",
    ),
    knob(
        "CTX_SECRETS_KEY_PREV",
        "str",
        "",
        "The previous master key during a rotation; secrets sealed under it are re-sealed.",
        secret=True,
        parse=parse_hex_key,
    ),
    knob(
        "CTX_SECRETS_KEY_PREV_FILE",
        "str",
        "",
        "File holding CTX_SECRETS_KEY_PREV; set this or CTX_SECRETS_KEY_PREV, not both.",
    ),
)
