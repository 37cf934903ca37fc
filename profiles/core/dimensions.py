"""The dimensions a preference is about, the metric scale, the sections of the rule library,
the canonical rule texts, and the user-fact keys (README: "Dimensions")."""

from __future__ import annotations

from typing import Literal

Direction = Literal["+", "-", "set"]
DIRECTIONS: tuple[Direction, ...] = ("+", "-", "set")

# Metric dimensions hold a value in [-1, 1]; 0 is the neutral default, +1 the most of the
# named quality: verbosity (long, detailed), tone (warm, enthusiastic), formality (formal),
# directness (blunt, decisive). One scale for all four keeps "by 0.5" meaning the same thing.
METRICS: tuple[str, ...] = ("verbosity", "tone", "formality", "directness")
METRIC_MIN, METRIC_MAX = -1.0, 1.0
# Named parts of a metric dimension that a rule can be about without being about the whole
# metric: disliking apologies does not contradict wanting warmth.
METRIC_ASPECTS: frozenset[str] = frozenset(
    {"apologies", "flattery", "exclamations", "pleasantries", "humour"}
)

DIMENSIONS: tuple[str, ...] = (
    *METRICS,
    "format",
    "structure",
    "code_style",
    "language",
    "emoji",
    "citations",
    "explanations",
    "examples",
    "other",
)

# The rule library's sections, in the order the prompt shows them.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Language", ("language",)),
    ("Length and tone", METRICS),
    ("Structure", ("structure",)),
    ("Formatting", ("format", "emoji")),
    ("Content", ("explanations", "examples", "citations")),
    ("Code", ("code_style",)),
    ("Other", ("other",)),
)
SECTION_OF: dict[str, str] = {dim: name for name, dims in SECTIONS for dim in dims}

# Aspects of one dimension that exclude each other when chosen ("set"): one answer language,
# one thing the answer opens with, one programming language.
EXCLUSIVE_SLOTS: dict[str, str] = {
    "language": "answer",
    "structure": "opening",
    "code_style": "code_language",
}

_RULES: dict[tuple[str, str, str], str] = {
    ("verbosity", "", "-"): "Keep answers short.",
    ("verbosity", "", "+"): "Give detailed, thorough answers.",
    ("tone", "", "-"): "Keep the tone neutral and matter-of-fact.",
    ("tone", "", "+"): "Be warm and encouraging.",
    ("tone", "apologies", "-"): "Do not apologise.",
    ("tone", "flattery", "-"): "Do not flatter the user or praise the question.",
    ("tone", "exclamations", "-"): "Avoid exclamation marks.",
    ("tone", "pleasantries", "-"): "Skip pleasantries; start with the content.",
    ("tone", "humour", "+"): "Light humour is welcome.",
    ("tone", "humour", "-"): "No jokes.",
    ("formality", "", "+"): "Write formally and professionally.",
    ("formality", "", "-"): "Write casually, like a colleague.",
    ("directness", "", "+"): "Be direct: give a clear recommendation without hedging.",
    ("directness", "", "-"): "Be diplomatic and soften criticism.",
    ("format", "bullets", "+"): "Use bullet lists where they help.",
    ("format", "bullets", "-"): "Avoid bullet lists.",
    ("format", "tables", "+"): "Use tables to compare options.",
    ("format", "tables", "-"): "Avoid tables.",
    ("format", "prose", "+"): "Write in prose paragraphs.",
    ("format", "prose", "-"): "Avoid long prose paragraphs.",
    ("format", "markdown", "+"): "Use Markdown formatting.",
    ("format", "markdown", "-"): "Use plain text, not Markdown formatting.",
    ("format", "headings", "+"): "Use headings to structure long answers.",
    ("format", "headings", "-"): "Use few or no headings.",
    ("format", "bold", "+"): "Use bold for key terms.",
    ("format", "bold", "-"): "Do not use bold text for emphasis.",
    ("structure", "command_first", "set"): "Show the command first, then explain.",
    ("structure", "answer_first", "set"): "Lead with the answer, then explain.",
    ("structure", "summary_first", "set"): "Start with a short summary.",
    ("structure", "code_first", "set"): "Put the code before the explanation.",
    ("structure", "summary_first", "-"): "Do not open with a summary.",
    ("structure", "steps", "+"): "Use numbered steps for procedures.",
    ("structure", "steps", "-"): "Do not break answers into numbered steps.",
    ("structure", "recap", "+"): "End with a short recap.",
    ("structure", "recap", "-"): "Do not end with a recap.",
    ("code_style", "comments", "+"): "Comment the code where it helps.",
    ("code_style", "comments", "-"): "Keep code comments to a minimum.",
    ("code_style", "type_hints", "+"): "Use type hints.",
    ("code_style", "type_hints", "-"): "Leave out type hints.",
    ("code_style", "docstrings", "+"): "Write docstrings.",
    ("code_style", "docstrings", "-"): "Skip docstrings on trivial functions.",
    ("code_style", "full_code", "+"): "Show complete files, not snippets.",
    ("code_style", "full_code", "-"): "Show only the relevant snippet.",
    ("language", "match", "set"): "Answer in the language the user writes in.",
    ("emoji", "", "+"): "An occasional emoji is welcome.",
    ("emoji", "", "-"): "Do not use emoji.",
    ("citations", "", "+"): "Cite sources and link to documentation for factual claims.",
    ("citations", "", "-"): "Keep links and source lists to a minimum.",
    ("explanations", "", "+"): "Explain the reasoning behind answers.",
    ("explanations", "", "-"): "Skip basic explanations; assume expertise.",
    ("examples", "", "+"): "Include concrete examples.",
    ("examples", "", "-"): "Keep examples to a minimum.",
}


def rule_text(dimension: str, aspect: str, direction: str) -> str:
    """The canonical rule for a preference; the same preference always gets the same words,
    so repeated signals deduplicate exactly."""
    found = _RULES.get((dimension, aspect, direction)) or _RULES.get((dimension, "", direction))
    if found:
        return found
    if dimension == "language":
        return _language_rule(aspect, direction)
    if dimension == "code_style" and direction == "set":
        return f"Write code in {display_name(aspect)}."
    label = aspect.replace("_", " ")
    if direction == "-":
        return f"Avoid {label}." if label else f"Less {dimension.replace('_', ' ')}."
    return f"Prefer {label}." if label else f"More {dimension.replace('_', ' ')}."


def _language_rule(aspect: str, direction: str) -> str:
    if aspect.startswith("terms:"):
        return f"Keep technical terms in {display_name(aspect[6:])}."
    if direction == "set":
        return f"Answer in {display_name(aspect)}."
    return f"Do not answer in {display_name(aspect)}."


_DISPLAY = {
    "typescript": "TypeScript",
    "javascript": "JavaScript",
    "c#": "C#",
    "c++": "C++",
    "php": "PHP",
    "sql": "SQL",
}


def display_name(name: str) -> str:
    """How a language name is written in a rule (`typescript` → `TypeScript`)."""
    return _DISPLAY.get(name, name.title())


# --- user facts ---------------------------------------------------------------------------

FACT_KEYS: tuple[str, ...] = (
    "name",
    "role",
    "employer",
    "location",
    "timezone",
    "languages",
    "pronouns",
)
# Published profiles drop these unless the user marks a fact public.
PRIVATE_FACT_KEYS: frozenset[str] = frozenset({"name", "employer", "location", "timezone"})
# Keys that gather several values (a newer value adds to them instead of replacing).
MULTI_VALUED_FACT_KEYS: frozenset[str] = frozenset({"languages"})
