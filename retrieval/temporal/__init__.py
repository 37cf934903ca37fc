"""The pure temporal layer of retrieval: query parsing, date anchors in content, and gravity.

No database and no Django: everything here is a function of its arguments.
"""

from __future__ import annotations

from retrieval.temporal.anchors import (
    DateAnchor,
    Precision,
    anchor_dimensions,
    extract_anchors,
    extract_dates,
)
from retrieval.temporal.gravity import (
    DEFAULT_CAP,
    GravityExplain,
    apply_gravity,
    cyclic_factor,
    linear_match,
)
from retrieval.temporal.intent import (
    CYCLIC_DIMENSIONS,
    DIMENSIONS,
    DateRange,
    Direction,
    TemporalIntent,
)
from retrieval.temporal.lexicon import Language
from retrieval.temporal.parser import parse
from retrieval.temporal.weights import PROFILES

__all__ = [
    "CYCLIC_DIMENSIONS",
    "DEFAULT_CAP",
    "DIMENSIONS",
    "PROFILES",
    "DateAnchor",
    "DateRange",
    "Direction",
    "GravityExplain",
    "Language",
    "Precision",
    "TemporalIntent",
    "anchor_dimensions",
    "apply_gravity",
    "cyclic_factor",
    "extract_anchors",
    "extract_dates",
    "linear_match",
    "parse",
]
