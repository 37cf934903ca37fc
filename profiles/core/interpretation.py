"""What an interpreter makes of a signal: style interpretations and user facts."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, TypedDict, cast

from profiles.core.dimensions import (
    DIMENSIONS,
    DIRECTIONS,
    METRIC_MAX,
    METRICS,
    PRIVATE_FACT_KEYS,
    Direction,
)
from profiles.core.signals import Signal

MAX_PREFERENCE_CHARS = 200
MAX_REASONING_CHARS = 300
MAX_FACT_VALUE_CHARS = 200


class InterpretationDict(TypedDict):
    dimension: str
    aspect: str
    preference: str
    direction: str
    confidence: float
    reasoning: str
    delta: float | None
    target: float | None
    adjustment: bool
    signal_id: str


@dataclass(frozen=True)
class Interpretation:
    """One preference read from a signal.

    `preference` is a normalised rule text ("Keep answers short."). `direction` is "+" (more
    of the dimension, or of `aspect`), "-" (less) or "set" (a choice in an exclusive slot:
    an answer language, what an answer opens with, a target value). On a metric dimension
    `delta` is the move it asks for; `adjustment` means it only moves the metric ("be a bit
    more formal") and adds no rule; `target` is an absolute value ("set formality to 0.8").
    """

    dimension: str
    preference: str
    direction: Direction
    confidence: float
    reasoning: str
    aspect: str = ""
    delta: float | None = None
    target: float | None = None
    adjustment: bool = False
    signal_id: str = ""

    @property
    def is_metric(self) -> bool:
        return self.dimension in METRICS

    def to_dict(self) -> InterpretationDict:
        return {
            "dimension": self.dimension,
            "aspect": self.aspect,
            "preference": self.preference,
            "direction": self.direction,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "delta": self.delta,
            "target": self.target,
            "adjustment": self.adjustment,
            "signal_id": self.signal_id,
        }


class FactDict(TypedDict):
    key: str
    value: str
    private: bool
    signal_id: str


@dataclass(frozen=True)
class UserFact:
    """A fact the user stated about themselves. An empty `value` retracts the key."""

    key: str
    value: str
    private: bool = True
    signal_id: str = ""

    def to_dict(self) -> FactDict:
        return {
            "key": self.key,
            "value": self.value,
            "private": self.private,
            "signal_id": self.signal_id,
        }


def make_fact(key: str, value: str, signal_id: str = "") -> UserFact:
    """A fact with its default privacy (README: "User facts")."""
    text = " ".join(value.split())[:MAX_FACT_VALUE_CHARS]
    return UserFact(key=key, value=text, private=key in PRIVATE_FACT_KEYS, signal_id=signal_id)


Source = Literal["rules", "llm", "rules-fallback"]


@dataclass(frozen=True)
class Reading:
    """Everything read from one signal. `source` says which interpreter produced it;
    `note` says why when the LLM's answer was not used."""

    signal_id: str
    interpretations: tuple[Interpretation, ...] = ()
    facts: tuple[UserFact, ...] = ()
    source: Source = "rules"
    note: str = ""

    @property
    def primary(self) -> Interpretation | None:
        """The most confident interpretation (the first, as interpreters order them)."""
        return self.interpretations[0] if self.interpretations else None


class Interpreter(Protocol):
    def interpret(self, signal: Signal, hint: str = "") -> Reading: ...


# --- normalisation shared by both interpreters ------------------------------------------


def normalise_preference(text: str) -> str:
    """One line, collapsed spaces, a capital first letter and a final full stop, bounded."""
    line = " ".join(str(text).split())[:MAX_PREFERENCE_CHARS].strip()
    if not line:
        return ""
    line = line[0].upper() + line[1:]
    return line if line[-1] in ".!?" else line + "."


def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def as_confidence(value: Any) -> float:
    """A number in [0, 1]; anything that is not a finite number becomes 0.5."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0.5
    return round(clamp(float(value), 0.0, 1.0), 3)


def as_delta(value: Any) -> float | None:
    """A metric move within the scale's width, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    width = 2 * METRIC_MAX
    return round(clamp(float(value), -width, width), 3)


def as_dimension(value: Any) -> str:
    """A known dimension; anything else is "other"."""
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    return text if text in DIMENSIONS else "other"


def as_direction(value: Any) -> Direction | None:
    text = str(value).strip()
    aliases = {"more": "+", "less": "-", "increase": "+", "decrease": "-", "\u2212": "-"}
    text = aliases.get(text.lower(), text)
    return cast(Direction, text) if text in DIRECTIONS else None


_ASPECT = re.compile(r"[^a-z0-9:+#._-]+")


def as_aspect(value: Any) -> str:
    return _ASPECT.sub("_", str(value).strip().lower()).strip("_")[:50]


def order(interpretations: list[Interpretation]) -> tuple[Interpretation, ...]:
    """Most confident first (stable: equal confidence keeps the order found), one per
    (dimension, aspect, direction), and within a signal the more confident of two that
    contradict each other on the same dimension and aspect."""
    ranked = sorted(interpretations, key=lambda i: -i.confidence)
    kept: list[Interpretation] = []
    for item in ranked:
        if any(k.dimension == item.dimension and k.aspect == item.aspect for k in kept):
            continue
        kept.append(item)
    return tuple(kept)


def with_signal(items: tuple[Interpretation, ...], signal_id: str) -> tuple[Interpretation, ...]:
    return tuple(replace(i, signal_id=signal_id) for i in items)
