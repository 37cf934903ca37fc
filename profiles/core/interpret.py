"""Interpretation of signals: the public face of the interpreters.

- `RuleInterpreter` (rules.py): deterministic keyword and phrase rules, used when no LLM is
  configured and as the fallback of the LLM one.
- `LLMInterpreter` (llm_interpret.py): a JSON-schema constrained prompt through a caller's
  `complete(messages, json_schema)` callable, its answer validated and normalised.
Both return a `Reading`: style `Interpretation`s (most confident first) and `UserFact`s.
"""

from __future__ import annotations

from collections.abc import Sequence

from profiles.core.interpretation import (
    Interpretation,
    Interpreter,
    Reading,
    UserFact,
    make_fact,
)
from profiles.core.llm_interpret import SCHEMA, SYSTEM, Complete, LLMInterpreter, Message
from profiles.core.rules import RuleInterpreter
from profiles.core.signals import Signal

__all__ = [
    "SCHEMA",
    "SYSTEM",
    "Complete",
    "Interpretation",
    "Interpreter",
    "LLMInterpreter",
    "Message",
    "Reading",
    "RuleInterpreter",
    "UserFact",
    "interpret_all",
    "make_fact",
]


def interpret_all(
    interpreter: Interpreter, signals: Sequence[Signal], hint: str = ""
) -> list[Reading]:
    """Every signal's reading, in the order given."""
    return [interpreter.interpret(signal, hint) for signal in signals]
