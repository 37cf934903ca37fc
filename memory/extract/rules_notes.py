"""Self-disclosure: a user's declarative clause about themselves, kept as a "note" fact.

Most of what people tell an assistant about their lives fits no attribute pattern ("I
redeemed a $5 coupon on coffee creamer last Sunday"); this rule keeps such clauses, rewritten
in the third person, with lower confidence than the attribute rules. It is deliberately
narrow about what counts as a statement: no questions, conditionals, wishes, requests,
reactions to the assistant's answer, or instructions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memory.extract.base import USER
from memory.extract.context import Candidate, Clause, weigh
from memory.extract.person import sentence, third_person
from memory.extract.text import is_hypothetical

MAX_NOTE_CHARS: Final = 280
MIN_NOTE_WORDS: Final = 4

_FIRST_PERSON: Final = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]e|[Mm]y|[Mm]yself|[Mm]ine)\b")
_I_SUBJECT: Final = re.compile(r"\bI(?:'m|'ve|\u2019m|\u2019ve)?\b")
_HEDGE: Final = re.compile(
    r"(?:I\s+(?:think|believe|guess|suppose|reckon|feel like)(?:\s+that)?|"
    r"I'm\s+(?:pretty\s+|fairly\s+|quite\s+)?(?:sure|certain)(?:\s+that)?)[,\s]+",
)
# Requests, meta-talk and reactions: what comes right after "I" when the clause is about the
# conversation rather than about the user's life.
_META: Final = re.compile(
    r"I(?:'m|\s+am|\s+was|'ve been|\s+have been)?\s+(?:just\s+|really\s+|also\s+|still\s+)*"
    r"(?:wondering|wonder|curious|looking\s+for\s+(?:some\s+|any\s+|a\s+few\s+|more\s+|a\s+)?"
    r"(?:tips|advice|ideas|suggestions|recommendations|help|information|info|resources|ways|"
    r"guidance|options|feedback|input)|"
    r"(?:give|am\s+giving|'m\s+giving|want|need|ask|tell|asked|told|gave)\s+you\b|"
    r"need\s+(?:some\s+|any\s+|your\s+|a\s+little\s+|more\s+)?(?:help|advice|tips|suggestions|"
    r"ideas|recommendations|information|you|guidance|assistance)|want\s+(?:you|to\s+know|to\s+ask|"
    r"some|more\s+info)|would\s+like|'d\s+like|hope|appreciate|agree|disagree|understand|see\b|"
    r"get\s+it|mean|meant|have\s+(?:a|another|some|one\s+more)\s+questions?|got\s+a\s+question|"
    r"not\s+sure|don't\s+know|do\s+not\s+know|can't\s+decide|trying\s+to\s+(?:figure\s+out|decide|"
    r"understand|find\s+out|think\s+of|come\s+up\s+with|work\s+out)|"
    r"(?:was|am|'m)\s+thinking(?:\s*[,.]|\s+(?:that|maybe|you|it|of\s+asking))|asked\s+you|"
    r"asking|"
    r"(?:really\s+)?(?:like|love|appreciate|enjoyed|liked|loved)\s+(?:that|this|those|these|it|"
    r"your|the\s+(?:idea|ideas|suggestion|suggestions|tips|list|recipe|options|advice|plan))\b|"
    r"(?:will|'ll|would|'d|could|might|should|can|can't|cannot|must)\b|"
    r"(?:am|'m|are)\s+going\s+to\s+(?:try|check|look|ask|use\s+(?:that|this|these|your))|"
    r"think\s+(?:so|that's|that\s+is|it's|this|you)|"
    r"feel\s+like\s+(?:I|it|you)|forgot\s+to\s+(?:mention|ask|say|tell)|"
    r"was\s+(?:hoping|wondering)|am\s+(?:hoping|wondering)|'m\s+(?:hoping|wondering)|"
    r"didn't\s+(?:know|realize|think\s+about)\s+(?:that|about|you)|"
    r"(?:love|like)\s+to\s+(?:know|hear|learn|see|get)|have\s+to\s+say|must\s+say|"
    r"(?:really\s+)?(?:like|love)\s+(?:the\s+sound\s+of|how|what)|"
    r"(?:am|'m)\s+(?:so\s+|really\s+)?(?:glad|happy|grateful|thankful)\s+(?:you|to\s+(?:help|hear|"
    r"know|see)|that\s+you)|(?:am|'m)\s+(?:good|fine|all\s+set|ok|okay|done)\b)",
    re.IGNORECASE,
)
_IMPERATIVE: Final = re.compile(
    r"(?:please|kindly|can|could|would|will|tell|give|show|help|let|write|make|explain|describe|"
    r"create|list|provide|suggest|recommend|find|generate|rewrite|summari[sz]e|translate|"
    r"compose|draft|edit|check|review|fix|act|pretend|imagine|consider|keep|note|thanks|"
    r"thank|sorry|ok|okay|yes|no|sure|great|perfect|awesome|cool|wow|answer|continue|"
    r"remember|don't|do|try|send|include|add|use|go|put|ignore|assume|bear|walk|guide|"
    r"elaborate|expand|clarify|compare|recommend|teach|convert|format|correct|proofread|"
    r"paraphrase|improve|analy[sz]e|calculate|plan|design|build|outline|brainstorm|ask|"
    r"respond|reply|play|be|become|talk|speak|say|start|stop|rate|score|choose|pick|identify|"
    r"classify|extract|predict|solve|complete|given|assuming|suppose|based)\b",
    re.IGNORECASE,
)
_CONDITIONAL: Final = re.compile(r"\b(?:if|unless|whether|in case)\b", re.IGNORECASE)
# Intentions and promises are not facts yet ("I'll try that", "I'd go with the blue one").
_FUTURE: Final = re.compile(
    r"\bI(?:'ll|'d|\u2019ll|\u2019d|\s+will|\s+would|\s+could|\s+might|\s+should|\s+may)\b"
)
_NEGATED_VERB: Final = re.compile(
    r"I\s+(?:\w+ly\s+)?(?:don't|do not|didn't|did not|never|haven't|have not|hadn't|"
    r"can't|cannot|won't|wasn't)\b|I'm\s+not\b|I've\s+never\b",
)


def notes(clause: Clause) -> Iterator[Candidate]:
    """At most one note per clause: the clause itself, when it is a statement about the user."""
    if clause.question or clause.role not in {"user", "document"}:
        return
    start = clause.body_start()
    hedge = _HEDGE.match(clause.text, start, clause.end)
    if hedge:
        start = hedge.end()
    end = _bounded_end(clause.text, start, clause.end)
    body = clause.text[start:end]
    if not _is_statement(clause, start, body):
        return
    base = 0.55 if hedge else 0.7 if _I_SUBJECT.search(body) else 0.6
    yield Candidate(
        kind="fact",
        subject=USER,
        attribute="note",
        value=" ".join(body.split()).rstrip(".!"),
        statement=sentence(third_person(body)),
        confidence=weigh(base, clause.role),
        start=start,
        end=end,
        rule="note",
        negated=_NEGATED_VERB.search(body) is not None,
    )


def _is_statement(clause: Clause, start: int, body: str) -> bool:
    if len(body.split()) < MIN_NOTE_WORDS or clause.quoted(start):
        return False
    first = _first_person(clause, start, body)
    if first is None or _IMPERATIVE.match(body):
        return False
    if _CONDITIONAL.search(body) or is_hypothetical(body[: first.end() + 24]):
        return False
    if _FUTURE.search(body):
        return False
    return not any(_META.match(body, m.start()) for m in _I_SUBJECT.finditer(body))


def _first_person(clause: Clause, start: int, body: str) -> re.Match[str] | None:
    """The first "I"/"my"/"me" of the body outside quotes ("she said 'I love it'" is hers)."""
    for match in _FIRST_PERSON.finditer(body):
        if not clause.quoted(start + match.start()):
            return match
    return None


def _bounded_end(text: str, start: int, end: int) -> int:
    """End the note at a comma before MAX_NOTE_CHARS (or a word break) when the clause runs
    on: a note is a sentence, not a paragraph."""
    if end - start <= MAX_NOTE_CHARS:
        return end
    limit = start + MAX_NOTE_CHARS
    comma = text.rfind(",", start, limit)
    if comma > start + MAX_NOTE_CHARS // 2:
        return comma
    space = text.rfind(" ", start, limit)
    return space if space > start else limit
