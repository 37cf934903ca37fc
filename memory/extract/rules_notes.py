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
    r"I(?:'m|\s+am|\s+was|'ve been|\s+have been)?\s+(?:just\s+|really\s+|also\s+|still\s+|"
    r"totally\s+|completely\s+|absolutely\s+|definitely\s+|so\s+)*"
    r"(?:wondering|wonder|curious|looking\s+for\s+(?:[\w'-]+\s+){0,4}?"
    r"(?:tips|advice|ideas|suggestions|recommendations|help|information|info|resources|ways|"
    r"guidance|options|feedback|input|inspiration)\b|"
    r"(?:so\s+|really\s+)?excited\s+to\s+(?:try|give|start|make|put|use|read|check)\s+(?:out\s+)?"
    r"(?:these|this|those|that|your|the|some\s+of)\b|want\s+to\s+(?:explore|try|know)\s+"
    r"(?:this|that|these|those|more)\b|can't\s+wait\s+to\s+try|"
    r"had\s+no\s+idea|didn't\s+(?:know|realize)\s+(?:that\s+)?\w+|never\s+(?:knew|realized)|"
    r"glad\s+to\s+(?:see|hear|know|learn)|"
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
    r"going\s+to\s+(?:try|check|look|ask|use\s+(?:that|this|these|your))|"
    r"think\s+(?:so|that's|that\s+is|it's|this|you)|"
    r"feel\s+like\s+(?:I|it|you)|forgot\s+to\s+(?:mention|ask|say|tell)|"
    r"was\s+(?:hoping|wondering)|am\s+(?:hoping|wondering)|'m\s+(?:hoping|wondering)|"
    r"didn't\s+(?:know|realize|think\s+about)\s+(?:that|about|you)|"
    r"(?:love|like)\s+to\s+(?:know|hear|learn|see|get)|have\s+to\s+say|must\s+say|"
    r"(?:really\s+)?(?:like|love)\s+(?:the\s+sound\s+of|how|what)|"
    r"(?:glad|happy|grateful|thankful)\s+(?:you|to\s+(?:help|hear|know|see)|that\s+you)|"
    r"(?:good|fine|all\s+set|ok|okay|done)\b)",
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
# A request anywhere in the clause ("For step 3, please help me ...").
_REQUEST: Final = re.compile(
    r"\b(?:please|help\s+me|let\s+me\s+know)\b|^(?:here's|here\s+is|here\s+are)\b", re.IGNORECASE
)
# An opinion on what was just said ("It's nice to have an impartial perspective ...").
_REACTION: Final = re.compile(
    r"(?:it|that|this)(?:'s|\u2019s|\s+is|\s+was|\s+just|\s+seems|\s+sounds|\s+looks)\s+"
    r"(?:\w+\s+){0,2}?(?:nice|great|good|helpful|interesting|amazing|funny|weird|crazy|cool|awesome|"
    r"perfect|useful|fascinating|like|achievable|a\s+(?:waste|good|great|relief))\b",
    re.IGNORECASE,
)
# A pronoun that points back into the conversation ("them", "it", "these"), as a word.
_PRONOUN: Final = re.compile(r"\b(?:it|them|they|they're|they've|these|those)\b", re.IGNORECASE)
_DUMMY_IT: Final = re.compile(
    r"it\s+(?:took|takes|cost|costs)\b|it(?:'s|\s+has|\s+had)\s+been\s+(?:\w+\s+)?"
    r"(?:\d+|a|an|one|two|three|four|five|six|several|a few|many)\s",
    re.IGNORECASE,
)
_NAMES_SOMETHING: Final = re.compile(
    r"\b(?!I\b|I'|I\u2019)[A-Z]\w*|\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
    r"twelve|twenty|hundred|thousand)\b"
)
_DANGLING_END: Final = re.compile(
    r"\s(?:through|with|to|for|on|at|in|of|about|from)\W*$", re.IGNORECASE
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
    if _REQUEST.search(body) or _REACTION.match(body) or _unanchored(body):
        return False
    if _DANGLING_END.search(body):
        return False  # "I still need to go through." stops before saying what
    first = _first_person(clause, start, body)
    if first is None or _IMPERATIVE.match(body):
        return False
    if _CONDITIONAL.search(body) or is_hypothetical(body[: first.end() + 24]):
        return False
    if _FUTURE.search(body):
        return False
    return not any(_META.match(body, m.start()) for m in _I_SUBJECT.finditer(body))


def _unanchored(body: str) -> bool:
    """Whether the clause leans on something said before it and names nothing itself ("It
    allows me to ...", "I've worn them for casual outings"): out of its conversation it says
    nothing. A clause that also names something (a name, a number: "Alex marinated them for
    24 hours") keeps its content; a dummy "it" ("it took me 4 hours") refers to nothing."""
    references = [m for m in _PRONOUN.finditer(body) if not _DUMMY_IT.match(body, m.start())]
    if not references:
        return False
    if references[0].start() == 0:
        return True  # the clause's subject is the reference
    return _NAMES_SOMETHING.search(body, 1) is None


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
