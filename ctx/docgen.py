"""Generated reference docs: `python -m ctx.docgen` rewrites docs/settings.md.

A test fails when the committed file differs from what the code declares (conventions §22).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ctx.config import KNOBS, Knob

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_MD = ROOT / "docs" / "settings.md"


def _default(knob: Knob) -> str:
    if knob.secret:
        return "(unset)" if not knob.default else "(secret)"
    if isinstance(knob.default, list):
        return ", ".join(knob.default) or "(empty)"
    return "(unset)" if knob.default in ("", None) else str(knob.default)


def settings_markdown() -> str:
    lines = [
        "# Settings",
        "",
        "Generated from `ctx/config.py` by `python -m ctx.docgen`; do not edit by hand.",
        "Every value comes from the environment. A malformed value stops the start, and every",
        "finding is listed at once. `python manage.py config` prints the effective values with",
        "secrets masked.",
        "",
        "| name | type | default | secret | description |",
        "|---|---|---|---|---|",
    ]
    for k in KNOBS:
        secret = "yes" if k.secret else ""
        lines.append(f"| `{k.name}` | {k.type_name} | {_default(k)} | {secret} | {k.help} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    SETTINGS_MD.parent.mkdir(exist_ok=True)
    SETTINGS_MD.write_text(settings_markdown())
    print(f"wrote {SETTINGS_MD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
