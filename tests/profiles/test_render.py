"""The prompt a profile renders to: the exact header, the core style, sections in order."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from profiles.core.interpret import Interpretation, make_fact
from profiles.core.render import HEADER, core_style, render_prompt
from profiles.core.synthesis import create_profile, synthesize
from profiles.core.templates import TEMPLATES

T0 = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)


def test_it_renders_the_whole_prompt() -> None:
    profile = create_profile("coding", "Coding", "coding", now=T0)
    rule = Interpretation("emoji", "Do not use emoji.", "-", 0.9, "r", signal_id="s1")
    profile, _ = synthesize(profile, [rule], [make_fact("name", "Priya", "s2")], now=T0)
    assert render_prompt(profile) == (
        "# Coding — programming\n"
        "*Version 2 · updated 2025-03-12T14:00:00+00:00*\n"
        "\n"
        f"{HEADER}\n"
        "\n"
        "## Core style\n"
        "Answers are concise and direct. The register is plain and the tone matter-of-fact. "
        "Working code and exact commands come before discussion.\n"
        "\n"
        "## About the user\n"
        "- Name: Priya\n"
        "\n"
        "## Length and tone\n"
        "- Skip pleasantries; start with the content.\n"
        "\n"
        "## Structure\n"
        "- Put the code before the explanation.\n"
        "\n"
        "## Formatting\n"
        "- Do not use emoji.\n"
    )


def test_it_leaves_out_the_dash_when_there_is_no_context() -> None:
    profile = create_profile("me", "Me", "general", context="", now=T0)
    assert render_prompt(profile).splitlines()[:2] == [
        "# Me",
        "*Version 1 · updated 2025-03-12T14:00:00+00:00*",
    ]


def test_it_writes_two_or_three_sentences_of_core_style_from_the_metrics() -> None:
    neutral = core_style({})
    assert neutral == (
        "Answers are as long as the question needs and clear. "
        "The register is plain and the tone friendly without being effusive."
    )
    extreme = core_style(
        {"verbosity": -1, "directness": 1, "formality": 1, "tone": -1}, TEMPLATES["general"]
    )
    assert extreme.startswith("Answers are short and to the point and blunt")
    assert "formal and the tone strictly matter-of-fact" in extreme
    assert extreme.endswith(TEMPLATES["general"].focus)


def test_it_renders_the_same_profile_to_the_same_text() -> None:
    profile = create_profile("w", "Writing", "writing", now=T0)
    assert render_prompt(profile) == render_prompt(replace(profile))
