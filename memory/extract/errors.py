"""Error -> fix pairs: "the error was X" ... "fixed it by Y" (possibly a few messages later).

The fix is the evidence (the user or a note says what worked); the error message it belongs
to is the supporting span. A fix with no error before it in the last few messages is left
out: "fixed by Y" alone does not say what was fixed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from memory.extract.base import Evidence, Extraction, Unit
from memory.extract.context import clean_value, weigh
from memory.extract.person import sentence, third_person
from memory.extract.text import MAX_UNIT_CHARS

# How many messages back a fix may look for its error.
PAIRING_WINDOW: Final = 4
MAX_ERROR_CHARS: Final = 120

_ERROR: Final = re.compile(
    r"\b(?:error|exception|traceback|stack trace|crash|bug|issue|problem)\s+(?:was|is|says|"
    r"said|reads|read|message is|message was)\s*:?\s*(?P<err>[^\n;!?]{3,160}?)(?=\.\s|[\n;!?]|\.?$)"
    r"|\b(?:got|getting|get|seeing|see|saw|hit|hitting|ran into|running into|throws|threw|"
    r"raises|raised|throwing)\s+(?:an?\s+|the\s+|this\s+)?(?:error|exception)"
    r"(?:\s*:\s*|\s+(?:saying|that says|that said|like)\s+)(?P<err2>[^\n]{3,160}?)(?=\.\s|\n|\.?$)"
    r"|(?P<err3>\b[A-Z]\w*(?:Error|Exception)\b(?::\s*[^\n]{0,120})?)",
    re.IGNORECASE,
)
_FIX: Final = re.compile(
    r"\b(?:fixed|solved|resolved|sorted)\s+(?:it|this|that|the (?:issue|error|problem|bug|"
    r"crash))?\s*(?:by|with|after)\s+(?P<fix>[^\n.;!?]{3,160})"
    r"|\b(?:the\s+)?(?:fix|solution|workaround|culprit|root cause)\s+(?:was|turned out to be)\s+"
    r"(?P<fix2>[^\n.;!?]{3,160})"
    r"|\b(?:it|that|this)\s+(?:worked|works now|went away)\s+(?:after|once|when)\s+"
    r"(?P<fix3>[^\n.;!?]{3,160})",
    re.IGNORECASE,
)


# Words every fix pattern contains: one search decides whether a message needs the full scan.
_FIX_GATE: Final = re.compile(
    r"fixed|solved|resolved|sorted|fix\b|solution|workaround|culprit|root cause|worked|"
    r"works now|went away",
)  # searched in the lower-cased text


@dataclass(frozen=True, slots=True)
class _Error:
    unit_index: int
    start: int
    end: int
    text: str


def error_fixes(units: Sequence[Unit]) -> list[Extraction]:
    """One "fix" fact per fix a user (or a note) reports after an error."""
    fixes = {i: list(_fixes(u)) for i, u in enumerate(units) if u.role in {"user", "document"}}
    if not any(fixes.values()):
        return []  # no fix reported: the (costlier) error scan has nothing to pair with
    errors: list[_Error] = []
    out: list[Extraction] = []
    for index, unit in enumerate(units):
        found = sorted(_errors(index, unit.text), key=lambda e: e.start)
        for m in fixes.get(index, ()):
            error = _latest(errors + [e for e in found if e.end <= m.start()], index)
            if error is not None:
                out.append(_extraction(units, index, m, error))
        errors.extend(found)
    return out


def _fixes(unit: Unit) -> Iterator[re.Match[str]]:
    if _FIX_GATE.search(unit.text[:MAX_UNIT_CHARS].lower()):
        yield from _FIX.finditer(unit.text, 0, MAX_UNIT_CHARS)


def _errors(index: int, text: str) -> Iterator[_Error]:
    for m in _ERROR.finditer(text, 0, MAX_UNIT_CHARS):
        group = next(g for g in ("err", "err2", "err3") if m[g])
        err = clean_value(m[group])[:MAX_ERROR_CHARS]
        yield _Error(index, m.start(group), m.start(group) + len(err), err)


def _latest(errors: Sequence[_Error], index: int) -> _Error | None:
    recent = [e for e in errors if index - e.unit_index <= PAIRING_WINDOW]
    return recent[-1] if recent else None


def _extraction(units: Sequence[Unit], index: int, m: re.Match[str], error: _Error) -> Extraction:
    unit = units[index]
    group = next(g for g in ("fix", "fix2", "fix3") if m[g])
    fix = clean_value(m[group])
    source = units[error.unit_index]
    support = Evidence(
        error.unit_index,
        error.start,
        error.end,
        source.text[error.start : error.end],
        source.source_id,
    )
    return Extraction(
        kind="fact",
        subject=f"error: {error.text}",
        attribute="fix",
        value=fix,
        statement=sentence(f'The error "{error.text}" was fixed by {third_person(fix)}'),
        confidence=weigh(0.8, unit.role),
        evidence=Evidence(
            index, m.start(), m.end(), unit.text[m.start() : m.end()], unit.source_id
        ),
        time=unit.timestamp,
        speaker=unit.role,
        rule="error_fix",
        support=(support,),
    )
