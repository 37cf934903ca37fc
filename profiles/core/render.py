"""The profile's prompt (Markdown) and its core style, generated from the metrics.

The prompt is the folder's `<slug>.md`:

    # <name> — <context>
    *Version N · updated <iso>*

    <the fixed header>

    ## Core style
    <two or three sentences>

    ## About the user          (when there are facts)
    ## <section> …             (the rule library, in dimensions.SECTIONS order)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from profiles.core.dimensions import METRICS

if TYPE_CHECKING:
    from profiles.core.profile import Profile
    from profiles.core.templates import Template

HEADER = (
    "These are the user's standing preferences for how you answer. Follow them unless the "
    "current request asks for something else: the user's words in the conversation win."
)
FACT_LABELS = {
    "name": "Name",
    "role": "Role",
    "employer": "Works at",
    "location": "Location",
    "timezone": "Time zone",
    "languages": "Languages",
    "pronouns": "Pronouns",
}

# Five bands of a metric in [-1, 1]: strongly low, low, neutral, high, strongly high.
_BANDS = (-0.5, -0.15, 0.15, 0.5)
_VERBOSITY = (
    "Answers are short and to the point",
    "Answers are concise",
    "Answers are as long as the question needs",
    "Answers are thorough",
    "Answers are detailed and thorough",
)
_DIRECTNESS = (
    "tactful, with criticism softened",
    "diplomatic",
    "clear",
    "direct",
    "blunt, committing to a recommendation without hedging",
)
_FORMALITY = ("very casual", "casual", "plain", "professional", "formal")
_TONE = (
    "strictly matter-of-fact, without pleasantries",
    "matter-of-fact",
    "friendly without being effusive",
    "warm",
    "warm and encouraging",
)


def band(value: float) -> int:
    """0..4: which of the five bands `value` falls in."""
    return sum(1 for edge in _BANDS if value >= edge)


def core_style(metrics: Mapping[str, float], template: Template | None = None) -> str:
    """Two sentences from the metrics (template sentences, no LLM), plus the template's
    focus sentence when it has one."""
    level = {dim: band(metrics.get(dim, 0.0)) for dim in METRICS}
    first = f"{_VERBOSITY[level['verbosity']]} and {_DIRECTNESS[level['directness']]}."
    second = (
        f"The register is {_FORMALITY[level['formality']]} and the tone {_TONE[level['tone']]}."
    )
    focus = template.focus.strip() if template else ""
    return " ".join(part for part in (first, second, focus) if part)


def title_line(profile: Profile) -> str:
    return f"# {profile.name} — {profile.context}" if profile.context else f"# {profile.name}"


def version_line(profile: Profile) -> str:
    return f"*Version {profile.version} · updated {profile.updated_at.isoformat()}*"


def render_prompt(profile: Profile) -> str:
    """The profile's prompt as Markdown (the `<slug>.md` file), ending in one newline."""
    lines = [title_line(profile), version_line(profile), "", HEADER, "", "## Core style"]
    lines += [profile.core_style, ""]
    if profile.facts:
        lines.append("## About the user")
        lines += [f"- {FACT_LABELS.get(f.key, f.key)}: {f.value}" for f in profile.facts]
        lines.append("")
    for section, rules in profile.sections():
        lines.append(f"## {section}")
        lines += [f"- {rule.text}" for rule in rules]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
