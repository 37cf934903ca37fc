"""The deterministic extractor: every rule family over every clause of every message.

`RuleExtractor().extract(units)` is a pure function of its input: no clock, no randomness,
no global state, so the same messages always give the same result, in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

from memory.extract.base import Evidence, Extraction, ExtractResult, Unit
from memory.extract.context import ADV, Candidate, Clause, Rule, words_of
from memory.extract.corrections import bare_correction, is_correction
from memory.extract.dates import mentioned_dates
from memory.extract.entities import find_entities
from memory.extract.errors import error_fixes
from memory.extract.relations import relations_from, works_on
from memory.extract.rules_de import german
from memory.extract.rules_facts import facts
from memory.extract.rules_notes import notes
from memory.extract.rules_prefs import preferences
from memory.extract.rules_relative import presupposed
from memory.extract.rules_work import work
from memory.extract.text import (
    MAX_UNIT_CHARS,
    Regions,
    Span,
    clauses,
    is_hypothetical,
    question_clauses,
    sentences,
    trim,
)

DEFAULT_RULES: Final[tuple[Rule, ...]] = (preferences, facts, presupposed, work, german)
# A note is dropped when an attribute rule already quotes this much of its clause: the
# attribute fact says the same thing better.
NOTE_COVERAGE: Final = 0.6

# From an assistant only restated preferences are taken ("Since you prefer Emacs ..."); a
# message without any such wording skips the sentence and clause work entirely. This gate
# must match wherever those rules can (rules_prefs: "you"/"the user" + up to a few words +
# a preference verb, or "favourite").
_RESTATES: Final = re.compile(
    rf"\b(?:you|user)\b(?:'re|'d)?\s*(?:(?:{ADV}|don't|do not|doesn't|does not|didn't|never|"
    r"are|is|am|not|a|big|huge|massive|such)\s+)*(?:prefers?|likes?|loves?|enjoys?|adores?|"
    r"hates?|dislikes?|detests?|can't|cannot|into|fan|obsessed|passionate|rather)\b"
    r"|\b(?:your|user's)\s+(?:all-time\s+|absolute\s+)?favou?rite",
)  # searched in the lower-cased text: a case-blind pattern is several times slower
# Pasted material after an instruction ("Rewrite this: I went to ...") is someone else's
# first person; everything after the instruction's colon or line break is skipped.
_PASTE_INSTRUCTION: Final = re.compile(
    r"\s*(?:please\s+)?(?:can you\s+|could you\s+)?(?:rewrite|rephrase|summari[sz]e|translate|"
    r"edit|proofread|paraphrase|improve|correct|check|analy[sz]e|review|read|continue|fix|"
    r"format|convert|polish|shorten|expand|grade|evaluate|critique|here is|here's|below is|"
    r"this is)\b[^\n]*?(?::|\n)",
    re.IGNORECASE,
)
# ... and material a message introduces anywhere as a sample or template ("HERE IS A SAMPLE
# EMAIL FOR YOU TO FOLLOW: Hi, I'm the co-founder of ...").
_PASTE_INTRO: Final = re.compile(
    r"\b(?:here\s+is|here's|below\s+is|sample|template|the\s+following)\b[^\n:]{0,60}:",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RuleExtractor:
    """The rule-based `Extractor`. `rules` are the clause rules, in the order they run."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    with_notes: bool = True

    def extract(self, text_units: Sequence[Unit]) -> ExtractResult:
        extractions: list[Extraction] = []
        for index, unit in enumerate(text_units):
            extractions.extend(self._unit(index, unit, extractions))
        extractions.extend(error_fixes(text_units))
        extractions.sort(key=_order)
        entities = find_entities(text_units, extractions)
        relations = relations_from(extractions, entities) + works_on(entities)
        return ExtractResult(tuple(extractions), tuple(entities), tuple(relations))

    def _unit(self, index: int, unit: Unit, previous: Sequence[Extraction]) -> list[Extraction]:
        if unit.role in {"assistant", "system"} and not _RESTATES.search(unit.text.lower()):
            return []
        regions = Regions(unit.text)
        end = _paste_start(unit)
        out: list[Extraction] = []
        for whole in sentences(unit.text):
            if whole.start >= end:
                break
            sentence = trim(unit.text, whole.start, min(whole.end, end))
            found = [
                self._convert(index, unit, c)
                for c in self._sentence(index, unit, sentence, regions)
            ]
            if is_correction(sentence.text(unit.text)):
                found = [_as_correction(e) for e in found]
                if not any(e.attribute != "note" for e in found):
                    found.extend(_bare(index, unit, sentence, [*previous, *out]))
            out.extend(found)
        return out

    def _sentence(
        self, index: int, unit: Unit, sentence: Span, regions: Regions
    ) -> Iterator[Candidate]:
        parts = clauses(unit.text, sentence)
        asking = question_clauses(unit.text, sentence, parts)
        for part, question in zip(parts, asking, strict=True):
            words = words_of(part.text(unit.text))
            clause = Clause(
                unit.text,
                part.start,
                part.end,
                index,
                unit.role,
                question,
                regions,
                sentence,
                words,
            )
            yield from _deduplicated(self._clause(clause))

    def _clause(self, clause: Clause) -> list[Candidate]:
        found = [c for rule in self.rules for c in rule(clause) if not _conditional(clause, c)]
        if self.with_notes:
            length = max(1, clause.end - clause.start)
            covered = max((c.end - c.start for c in found), default=0) / length
            if covered < NOTE_COVERAGE:
                found.extend(notes(clause))
        return found

    def _convert(self, index: int, unit: Unit, c: Candidate) -> Extraction:
        quote = unit.text[c.start : c.end]
        reference = unit.timestamp.date() if unit.timestamp else None
        return Extraction(
            kind=c.kind,
            subject=c.subject,
            attribute=c.attribute,
            value=c.value,
            statement=c.statement,
            confidence=c.confidence,
            evidence=Evidence(index, c.start, c.end, quote, unit.source_id),
            time=unit.timestamp,
            speaker=unit.role,
            negated=c.negated,
            rule=c.rule,
            dates=mentioned_dates(quote, reference),
        )


def _conditional(clause: Clause, candidate: Candidate) -> bool:
    """True when the clause puts the candidate under a condition or a wish ("If I moved to
    Paris", "maybe we decided ..."): the marker comes before the candidate's span."""
    return is_hypothetical(clause.text[clause.start : candidate.start])


def _deduplicated(candidates: Sequence[Candidate]) -> Iterator[Candidate]:
    """One candidate per (kind, subject, attribute, value) in a clause, the first rule's."""
    seen: set[tuple[str, str, str, str]] = set()
    for c in candidates:
        key = (c.kind, c.subject, c.attribute, c.value.casefold())
        if key not in seen:
            seen.add(key)
            yield c


def _as_correction(extraction: Extraction) -> Extraction:
    return replace(extraction, corrects=True)


def _bare(
    index: int, unit: Unit, sentence: Span, previous: Sequence[Extraction]
) -> Iterator[Extraction]:
    quote = sentence.text(unit.text)
    evidence = Evidence(index, sentence.start, sentence.end, quote, unit.source_id)
    corrected = bare_correction(unit.text, sentence.start, sentence.end, previous, evidence)
    if corrected is not None:
        yield replace(corrected, time=unit.timestamp, speaker=unit.role)


def _paste_start(unit: Unit) -> int:
    """Where pasted material starts in a user's message (its length when there is none)."""
    if unit.role != "user":
        return len(unit.text)
    m = _PASTE_INSTRUCTION.match(unit.text)
    if m:
        return m.end()
    intro = _PASTE_INTRO.search(unit.text, 0, MAX_UNIT_CHARS)
    return intro.end() if intro else len(unit.text)


def _order(e: Extraction) -> tuple[int, int, int, str, str, str]:
    return (e.evidence.unit_index, e.evidence.start, e.evidence.end, e.kind, e.attribute, e.value)
