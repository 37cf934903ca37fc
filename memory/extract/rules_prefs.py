"""Preferences: "I prefer X over Y", "I love/hate X", "my favourite X is Y", "X, which I enjoy",
and standing instructions to the assistant ("from now on ...", "always ...", "don't ...")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Final

from memory.extract.base import USER
from memory.extract.context import (
    ADV,
    SUBJ,
    VALUE,
    Candidate,
    Clause,
    clean_value,
    finditer,
    owner_allowed,
    subject_allowed,
    weigh,
)
from memory.extract.lexicon import category_of, find_category, slug, words
from memory.extract.person import sentence, third_person

# Words one of which every preference pattern needs (the directive aside): a clause without
# any is spared the patterns.
_GATE: Final = words(
    "prefer prefers rather like likes love loves enjoy enjoys adore adores hate hates dislike "
    "dislikes stand bear detest detests into fan obsessed passionate favorite favourite swear"
)
# A preferred value ends where its alternative begins ("Vim over VS Code").
_PREFERRED: Final = VALUE.replace(r"(?=\s+(?:", r"(?=\s+(?:over|than|rather than|instead of|to|", 1)
_PREFER: Final = re.compile(
    rf"{SUBJ}\s+(?:{ADV}\s+)*(?P<neg>(?:don't|do not|doesn't|does not|no longer)\s+)?"
    rf"(?:prefers?|(?:would|'d) rather(?: have| use)?)\s+(?P<to>to\s+)?{_PREFERRED}"
    r"(?:\s+(?:over|to|than|rather than|instead of)\s+(?P<other>[^,.;:!?()\n]{1,60}?)"
    r"(?=\s+(?:because|since|as|when|but|for)\b|\s*[,.;:!?()\n]|\s*$))?",
)
_POSITIVE: Final = (
    r"like|likes|love|loves|enjoy|enjoys|adore|adores|am into|'m into|is into|are into|"
    r"(?:am|'m|is|are) (?:a |such a )?(?:big |huge |massive )?fan of|"
    r"(?:am|'m|is|are) obsessed with|(?:am|'m|is|are) passionate about"
)
_NEGATIVE: Final = (
    r"hate|hates|dislike|dislikes|can't stand|cannot stand|can't bear|detest|detests|"
    r"(?:am|'m|is|are) not (?:a |really a )?(?:big )?fan of"
)
_LIKE: Final = re.compile(
    rf"{SUBJ}\s*(?:{ADV}\s+)*(?P<neg>(?:don't|do not|doesn't|does not|didn't|never)\s+"
    rf"(?:{ADV}\s+)*)?(?P<verb>{_NEGATIVE}|{_POSITIVE})\s+(?:{ADV}\s+)*{VALUE}",
    re.IGNORECASE,
)
# Objects that make "I love ..." a reaction to the conversation, not a lasting preference.
_REACTION: Final = re.compile(
    r"(?:that|this|those|these|it|them|your|you|the (?:idea|ideas|suggestion|suggestions|"
    r"tip|tips|list|recipe|recipes|options|advice|plan|way you|sound of)|how|what you|the fact|"
    r"to (?:think|know|hear|see|learn more|get|ask)|hearing|reading (?:this|that|your)|"
    r"when|where|the (?:first|second|third|last) (?:one|option|idea))\b",
    re.IGNORECASE,
)
_RESTATEMENT: Final = re.compile(
    r"\b(?:since|as|because|given that|given|you(?:'ve)?\s+(?:mentioned|said|told me|noted))"
    r"(?:\s+that)?\s*$",
    re.IGNORECASE,
)
# Objects that say nothing on their own ("which I enjoy using").
_EMPTY_OBJECTS: Final = words(
    "to a the using doing working having being making getting it one ones"
)
# "I like the gym-based activities idea": a reaction to a suggestion, named at the end.
_SUGGESTION: Final = re.compile(
    r"\b(?:idea|ideas|suggestion|suggestions|tip|tips|list|option|options|plan|advice)$",
    re.IGNORECASE,
)
_FAVOURITE_IS: Final = re.compile(
    r"\b(?P<poss>[Mm]y|[Yy]our|[Oo]ur|(?:[Tt]he )?[Uu]ser's)\s+(?:all-time\s+|absolute\s+)?"
    r"favou?rite\s+(?P<cat>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+"
    rf"(?:is|are|was|were|has to be|would be|has always been)\s+(?:definitely\s+)?{VALUE}",
)
_IS_FAVOURITE: Final = re.compile(
    r"(?P<value>[\w'&.+#-]+(?:\s+[\w'&.+#-]+){0,5}?)\s+(?:is|are|has been|was|have been)\s+"
    r"(?:probably\s+|definitely\s+|still\s+|always\s+)?(?P<poss>my|your|the user's)\s+"
    r"(?:all-time\s+)?favou?rite(?:\s+(?P<cat>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?))?"
    r"(?=\s*[,.;:!?]|\s+(?:so far|of all|ever|right now|lately|at the moment|for|in|to|"
    r"because|since|by far)\b|\s*$)",
    re.IGNORECASE,
)
_FAVOURITE_NP: Final = re.compile(
    r"\b(?P<poss>[Mm]y)\s+(?:all-time\s+)?favou?rite\s+"
    r"(?P<np>(?:[\w'+#-]+\s+){0,4}?[\w'+#-]+?)"
    r"(?=\s+(?:with|for|from|to|in|on|at|and|or|but|that|which|who|is|are|was|were|has|"
    r"have|had|so|because|since|when|while|recipe|recipes|tonight|today|tomorrow|yesterday|"
    r"again|lately|recently|every|this|last|next|all|now|too)\b|\s*[,.;:!?()]|\s*$)",
)
_WHICH_I: Final = re.compile(
    r"(?P<value>(?:[A-Z][\w+#.'-]*\s+){0,4}[A-Z][\w+#.'-]*),?\s+which\s+I\s+"
    rf"(?:{ADV}\s+)*(?P<verb>enjoy|love|like|adore|prefer|swear by)\b",
)
_DIRECTIVE: Final = re.compile(
    r"(?:please\s+)?(?P<lead>from now on|going forward|in (?:the )?future|always|never|"
    r"don't|do not|dont|stop|no more)\b[,:]?\s+(?:please\s+)?(?:(?P<lead2>always|never|"
    r"don't|do not)\s+)?(?P<vp>[^.;!?\n]{3,120})",
    re.IGNORECASE,
)
_NOT_DIRECTIVE: Final = re.compile(
    r"(?:worry|bother|mind|forget|hesitate|apologi[sz]e|be sorry|thank|get me wrong|"
    r"you think|you know|know|understand|have|want|need|let)\b",
    re.IGNORECASE,
)


def preferences(clause: Clause) -> Iterator[Candidate]:
    """Every preference rule on one clause; questions state no preference."""
    if clause.question:
        return
    yield from _directive(clause)  # anchored at the clause start: cheap, needs no gate
    if clause.words.isdisjoint(_GATE):
        return
    yield from _prefer(clause)
    yield from _like(clause)
    yield from _favourite(clause)
    yield from _which_i(clause)


def _prefer(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_PREFER, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        if clause.role == "assistant" and not _restated(clause, m.start()):
            continue
        value = clean_value(m["value"])
        other = clean_value(m["other"] or "")
        category = category_of(value) or (category_of(other) if other else None)
        negated = m["neg"] is not None
        to = "to " if m["to"] else ""
        text = f"The user {'does not prefer' if negated else 'prefers'} {to}{value}"
        text = third_person(text + (f" over {other}" if other else ""), named=True)
        yield Candidate(
            kind="preference",
            subject=USER,
            attribute=f"preferred_{category}" if category else "prefers",
            value=value,
            statement=sentence(text),
            confidence=weigh(0.9, clause.role),
            start=m.start(),
            end=m.end(),
            rule="prefer",
            negated=negated,
        )


def _like(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_LIKE, clause):
        if not subject_allowed(clause.role, m["subj"]) or _REACTION.match(m["value"]):
            continue
        if clause.role == "assistant" and not _restated(clause, m.start()):
            continue
        value = clean_value(m["value"])
        if not value or value.casefold() in _EMPTY_OBJECTS or _SUGGESTION.search(value):
            continue
        if value.casefold().startswith(("the most", "the best", "most ", "best ")):
            continue  # "the one I like the most"
        negative = re.match(_NEGATIVE, m["verb"], re.IGNORECASE) is not None
        negated = negative != (m["neg"] is not None)
        verb = "dislikes" if negated else "likes"
        yield Candidate(
            kind="preference",
            subject=USER,
            attribute="likes",
            value=value,
            statement=sentence(f"The user {verb} {third_person(value, named=True)}"),
            confidence=weigh(0.85, clause.role),
            start=m.start(),
            end=m.end(),
            rule="like",
            negated=negated,
        )


def _restated(clause: Clause, start: int) -> bool:
    """Whether an assistant's "you like X" restates the user ("Since you love X", "You
    mentioned you like X") rather than guessing ("something you'll love", "if you like")."""
    before = clause.text[clause.start : start]
    return _RESTATEMENT.search(before) is not None or not before.strip()


def _favourite(clause: Clause) -> Iterator[Candidate]:
    found = [
        _favourite_candidate(clause, m, m["cat"], clean_value(m["value"]))
        for m in finditer(_FAVOURITE_IS, clause)
    ]
    found.extend(_subject_favourite(clause))
    if found:
        yield from (c for c in found if c is not None)
        return
    for m in finditer(_FAVOURITE_NP, clause):
        np = clean_value(m["np"])
        # "my favourite Japanese short-grain rice" names a thing; "my favourite restaurant"
        # only a category, and a category alone is no preference ("TV show" neither: an
        # acronym is no name).
        if not re.search(r"[A-Z][a-z]|[0-9]", np) or len(np.split()) < 2:
            continue
        head = np.split()[-1]
        candidate = _favourite_candidate(clause, m, head, np)
        if candidate is not None:
            yield replace(candidate, statement=sentence(f"The user's favourite {head} is {np}"))


def _subject_favourite(clause: Clause) -> Iterator[Candidate]:
    """ "Nike has been my favourite brand": the value is the clause's subject, from its start."""
    m = _IS_FAVOURITE.match(clause.text, clause.body_start(), clause.end)
    if m is None or clause.quoted(m.start()):
        return
    value = _strip_lead(clean_value(m["value"]))
    if value and len(value.split()) <= 5:
        candidate = _favourite_candidate(clause, m, m["cat"] or "thing", value)
        if candidate is not None:
            yield candidate


def _strip_lead(value: str) -> str:
    """The value before "is my favourite", without a leading "I think" or conjunction."""
    value = re.sub(r"^(?:and|but|so|I think|I guess|honestly|well)\s+", "", value, flags=re.I)
    return value if value.casefold() not in {"it", "this", "that", "which", "who"} else ""


def _favourite_candidate(
    clause: Clause, m: re.Match[str], category: str, value: str
) -> Candidate | None:
    if not owner_allowed(clause.role, m["poss"]):
        return None
    text = clause.text[m.start() : m.end()]
    return Candidate(
        kind="preference",
        subject=USER,
        attribute=f"favorite_{slug(category, max_words=3)}",
        value=value,
        statement=sentence(third_person(text)),
        confidence=weigh(0.9, clause.role),
        start=m.start(),
        end=m.end(),
        rule="favorite",
    )


def _which_i(clause: Clause) -> Iterator[Candidate]:
    if clause.role not in {"user", "document"}:
        return
    for m in finditer(_WHICH_I, clause):
        value = m["value"]
        yield Candidate(
            kind="preference",
            subject=USER,
            attribute="likes",
            value=value,
            statement=sentence(f"The user {_verb3(m['verb'])} {third_person(value, named=True)}"),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="which_i",
        )


def _verb3(verb: str) -> str:
    return {"swear by": "swears by"}.get(verb, verb + "s")


def _directive(clause: Clause) -> Iterator[Candidate]:
    """An instruction at the start of a user's clause: "from now on, answer in German"."""
    if clause.role not in {"user", "document"}:
        return
    m = _DIRECTIVE.match(clause.text, clause.body_start(), clause.end)
    if m is None or _NOT_DIRECTIVE.match(m["vp"]):
        return
    leads = {m["lead"].casefold(), (m["lead2"] or "").casefold()}
    negated = bool(leads & {"never", "don't", "do not", "dont", "stop", "no more"})
    vp = clean_value(m["vp"])
    category = find_category(vp)
    when = " from now on" if leads & {"from now on", "going forward"} else ""
    verb = "asks the assistant not to" if negated else "asks the assistant to"
    if "always" in leads:
        verb = "asks the assistant to always"
    yield Candidate(
        kind="preference",
        subject=USER,
        attribute=f"preferred_{category}" if category else f"rule:{slug(vp)}",
        value=vp,
        statement=sentence(f"The user {verb} {third_person(vp, named=True)}{when}"),
        confidence=weigh(0.9, clause.role),
        start=m.start(),
        end=m.end(),
        rule="directive",
        negated=negated,
    )
