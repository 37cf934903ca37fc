"""Starter templates: the metrics, rules and focus sentence a new profile begins with."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiles.core.dimensions import METRICS, rule_text


@dataclass(frozen=True)
class Template:
    key: str
    name: str
    description: str
    context: str
    focus: str  # the core style's third sentence
    metrics: dict[str, float] = field(default_factory=dict)
    # (dimension, aspect, direction): the rules use the canonical texts, so a signal asking
    # for the same thing later deduplicates against them exactly.
    rules: tuple[tuple[str, str, str], ...] = ()

    def starting_metrics(self) -> dict[str, float]:
        return {dim: float(self.metrics.get(dim, 0.0)) for dim in METRICS}

    def rule_texts(self) -> list[str]:
        return [rule_text(*rule) for rule in self.rules]


TEMPLATES: dict[str, Template] = {
    t.key: t
    for t in (
        Template(
            key="general",
            name="General assistant",
            description="Everyday questions: balanced length, friendly and clear.",
            context="everyday questions",
            focus="Answer the question that was asked before adding anything else.",
        ),
        Template(
            key="coding",
            name="Coding",
            description="Programming help: code and exact commands first, little ceremony.",
            context="programming",
            focus="Working code and exact commands come before discussion.",
            metrics={"verbosity": -0.3, "directness": 0.4, "tone": -0.2},
            rules=(
                ("structure", "code_first", "set"),
                ("tone", "pleasantries", "-"),
            ),
        ),
        Template(
            key="writing",
            name="Writing",
            description="Drafting and editing prose: full sentences, careful register.",
            context="writing and editing",
            focus="Keep the author's voice and explain each substantive edit briefly.",
            metrics={"verbosity": 0.2, "formality": 0.3, "directness": -0.1},
            rules=(
                ("format", "prose", "+"),
                ("format", "bullets", "-"),
            ),
        ),
        Template(
            key="meeting-notes",
            name="Meeting notes",
            description="Summaries of meetings: decisions and action items, skimmable.",
            context="meeting notes",
            focus="Lead with decisions and action items, each with an owner and a date.",
            metrics={"verbosity": -0.4, "formality": 0.2},
            rules=(
                ("structure", "summary_first", "set"),
                ("format", "bullets", "+"),
                ("format", "headings", "+"),
            ),
        ),
    )
}


def get_template(key: str) -> Template:
    """The template named `key`; a KeyError lists the known ones."""
    try:
        return TEMPLATES[key]
    except KeyError:
        raise KeyError(f"unknown template {key!r}; known: {', '.join(TEMPLATES)}") from None
