"""Decisions ("we decided to ...", "let's go with X"), schedules ("we deploy on Thursdays"),
open tasks and blockers ("TODO", "need to", "blocked by", "waiting on")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memory.extract.base import TEAM, USER
from memory.extract.context import (
    ADV,
    SUBJ_WE,
    Candidate,
    Clause,
    clean_value,
    finditer,
    subject_allowed,
    subject_of,
    weigh,
)
from memory.extract.lexicon import MONTHS, WEEKDAYS, find_category, slug, words
from memory.extract.person import sentence, third_person

_WEEKDAY: Final = "|".join(WEEKDAYS)
# When a decision is to happen, at the end of what was decided ("deploy shop-api on
# Thursdays", "move the launch to June", "meet at 3pm tomorrow"): left out of the decision's
# key, so a later decision on the same thing at another time supersedes it.
_LEAD: Final = r"on|every|each|by|until|till|before|after|from|at|in|to|starting"
_ONLY_LEADS: Final = re.compile(rf"(?:\s*\b(?:{_LEAD}|next|this|last|the)\b)*\s*", re.IGNORECASE)
_WHEN: Final = re.compile(
    rf"\s+(?:(?:{_LEAD})\s+)?"
    r"(?:(?:next|this|last|every|the)\s+)?"
    rf"(?:(?:{_WEEKDAY})s?|(?:{'|'.join(MONTHS)})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?"
    r"|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}|tomorrow|today|tonight"
    r"|noon|midnight|week(?:end)?s?|month|year|q[1-4]|mornings?|afternoons?|evenings?)$",
    re.IGNORECASE,
)


def _topic(what: str) -> str:
    """What was decided without when it is to happen; the whole phrase when nothing else
    is left."""
    topic = what
    while (shorter := _WHEN.sub("", topic)) != topic and not _ONLY_LEADS.fullmatch(shorter):
        topic = shorter
    return topic


# A word every pattern of this module needs: one search spares a clause the others.
_GATE: Final = words(
    "decided decide decision agreed chose chosen settled opted committed resolved go going use "
    "stick switch move migrate standardize standardise let's let deploy release ship meet "
    "publish merge demo review sync plan planning retro back backups todo to fixme action need "
    "needs have has must got gotta should supposed remind forget remember blocked stuck held "
    "waiting"
)
_DECIDED: Final = re.compile(
    rf"{SUBJ_WE}(?:'ve|\s+have|\s+has)?\s+(?:{ADV}\s+)*"
    r"(?P<verb>decided|agreed|chose|chosen|settled|opted|committed|resolved)"
    r"(?:\s+(?P<link>to|on|that|for|upon|against))?\s+(?P<what>[^.;!?\n]{2,160})",
)
_GO_WITH: Final = re.compile(
    r"(?:(?P<subj>\b[Ww]e|\bI)(?:'ll|\s+will|'re going to|\s+are going to|'m going to|"
    r"\s+am going to|'re|\s+are|'m|\s+am)\s+(?:going\s+with|go\s+with|use|stick\s+with|"
    r"switch\s+to|move\s+to|migrate\s+to|standardi[sz]e\s+on)"
    r"|\b(?P<lets>[Ll]et's|[Ll]et us)\s+(?:go\s+with|use|stick\s+with|switch\s+to|pick|choose|"
    r"standardi[sz]e\s+on|move\s+to|migrate\s+to))"
    r"\s+(?P<what>[^,.;!?\n]{2,120})",
)
_DECISION_IS: Final = re.compile(
    r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:final\s+)?decision\s+(?:is|was|:)\s*(?:to\s+|that\s+)?"
    r"(?P<what>[^.;!?\n]{2,160})",
)
_SCHEDULE: Final = re.compile(
    rf"{SUBJ_WE}(?:'ll|\s+will)?\s+(?:{ADV}\s+)*(?P<verb>deploy|release|ship|meet|"
    r"publish|merge|demo|review|sync|plan|retro|back up|run backups|do releases|do deploys)"
    rf"\s+(?:[\w-]+\s+){{0,3}}?(?:on|every)\s+(?P<day>(?i:{_WEEKDAY}))s?\b",
)
_TODO: Final = re.compile(
    r"\b(?:TODO|To-?do|FIXME|Action item)\b\s*[:\-]?\s*(?P<what>[^\n]{3,160})"
)
# What is to be done: up to the end of the clause, or to where the speaker turns to the
# assistant ("... and was wondering if you could help"); never cut inside a word.
_TASK_TEXT: Final = (
    r"(?P<what>[^.;!?\n]{3,160}?)(?=\s+(?:and|but|so)\s+(?:was|am|I|I'm|I've|would|could|"
    r"can|do|any)\b|\s*[.;!?\n]|\s*$)"
)
_NEED_TO: Final = re.compile(
    rf"{SUBJ_WE}\s*(?:{ADV}\s+)*(?:still\s+)?(?P<verb>need to|needs to|have to|has to|must|"
    r"'ve got to|have got to|gotta|should|'m supposed to|am supposed to|'re supposed to|"
    r"plan to|am planning to|'m planning to|are planning to|'re planning to)\s+"
    rf"{_TASK_TEXT}",
)
_EVERYONE: Final = re.compile(r"\s+(?:all|as a society|as humans|as people)\b", re.IGNORECASE)
_DANGLING: Final = re.compile(r"^\S+$|\s(?:through|with|to|for|on|at|in|of|about)$")
_REMIND: Final = re.compile(
    r"\b(?:[Rr]emind me to|[Dd]on't let me forget to|[Rr]emember to|[Dd]on't forget to)\s+"
    r"(?P<what>[^.;!?\n]{3,160})"
)
_NOT_TASK: Final = re.compile(
    r"(?:know|understand|find out|figure out|ask|see|check with you|learn more|think|say|"
    r"admit|be honest|mention|tell you|get some|get your|make sure I understand|"
    r"correct myself|clarify|rephrase|apologi[sz]e)\b",
    re.IGNORECASE,
)
_BLOCKED: Final = re.compile(
    r"(?P<who>\b[\w.-]+(?:\s+[\w.-]+){0,3}?)(?:\s+(?:is|are|am|was|were|got|get|has been|"
    r"have been)|'s|'re|'m)\s+(?:still\s+|currently\s+)?(?:blocked|stuck|held up)\s+"
    r"(?:by|on|until)\s+(?P<what>[^,.;!?\n]{2,120})"
    r"|(?P<who2>\b[\w.-]+(?:\s+[\w.-]+){0,3}?)(?:\s+(?:is|are|am)|'s|'re|'m)\s+"
    r"(?:still\s+)?waiting\s+(?:on|for)\s+(?P<what2>[^,.;!?\n]{2,120})",
)


def work(clause: Clause) -> Iterator[Candidate]:
    """Decisions, schedules, tasks and blockers of one clause; none from a question."""
    if clause.question or clause.role not in {"user", "document"}:
        return  # an assistant's "you should ..." is advice, not the user's task or decision
    if clause.words.isdisjoint(_GATE):
        return
    for rule in (_decided, _go_with, _decision_is, _schedule, _todo, _need_to, _blocked):
        yield from rule(clause)


def _decided(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_DECIDED, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        what = clean_value(m["what"])
        link = m["link"] or ""
        negated = link == "against" or what.startswith("not ")
        phrase = f"{link} {what}" if link and link != "against" else what
        verb = "chose" if m["verb"] in {"chose", "chosen"} and not link else "decided"
        yield _decision(
            clause, m, subject_of(m["subj"]), phrase, "decided", negated=negated, verb=verb
        )


def _go_with(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_GO_WITH, clause):
        if m["subj"] and not subject_allowed(clause.role, m["subj"]):
            continue
        subject = TEAM if m["lets"] else subject_of(m["subj"])
        yield _decision(clause, m, subject, clean_value(m["what"]), "go_with")


def _decision_is(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_DECISION_IS, clause):
        yield _decision(clause, m, TEAM, clean_value(m["what"]), "decision_is")


def _decision(
    clause: Clause,
    m: re.Match[str],
    subject: str,
    what: str,
    rule: str,
    *,
    negated: bool = False,
    verb: str = "decided",
) -> Candidate:
    category = find_category(re.sub(r"^(?:to\s+)?(?:use|using)\s+", "", what), max_words=2)
    owner = "The team" if subject == TEAM else "The user"
    verb = "decided against" if negated and rule == "decided" else verb
    text = what if rule == "decided" else f"to use {what}" if category else f"on {what}"
    return Candidate(
        kind="decision",
        subject=subject,
        attribute=category or f"decision:{slug(_topic(what))}",
        value=what,
        statement=sentence(f"{owner} {verb} {third_person(text, named=True)}"),
        confidence=weigh(0.9, clause.role),
        start=m.start(),
        end=m.end(),
        rule=rule,
        negated=negated,
    )


def _schedule(clause: Clause) -> Iterator[Candidate]:
    """ "We deploy on Thursdays" -> team.deploy_day = Thursday (one value: a later day wins)."""
    for m in finditer(_SCHEDULE, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        verb = m["verb"].casefold()
        day = m["day"].capitalize()
        subject = subject_of(m["subj"])
        owner = "The team" if subject == TEAM else "The user"
        yield Candidate(
            kind="fact",
            subject=subject,
            attribute=f"{slug(verb, max_words=2)}_day",
            value=day,
            statement=sentence(f"{owner} {_third(verb)} on {day}s"),
            confidence=weigh(0.85, clause.role),
            start=m.start(),
            end=m.end(),
            rule="schedule",
        )


def _third(verb: str) -> str:
    head, _, rest = verb.partition(" ")
    head = head + ("es" if head.endswith(("sh", "ch", "s", "x")) else "s")
    return f"{head} {rest}".strip() if rest else head


def _todo(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_TODO, clause):
        yield _task(clause, m, USER, clean_value(m["what"]), "todo", 0.85)


def _need_to(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_NEED_TO, clause):
        if not subject_allowed(clause.role, m["subj"]) or _NOT_TASK.match(m["what"]):
            continue
        if _EVERYONE.match(clause.text, m.end("subj")):
            continue  # "we all need to do our part" is a maxim, not the team's task
        if _DANGLING.search(m["what"]):
            continue  # "I still need to go through" stops before saying what
        verb = m["verb"]
        base = 0.7 if "plan" in verb or verb == "should" else 0.8
        phrase = "plans to" if "plan" in verb else "should" if verb == "should" else "needs to"
        what = clean_value(m["what"])
        yield _task(clause, m, subject_of(m["subj"]), what, "need_to", base, phrase)
    for m in finditer(_REMIND, clause):
        yield _task(clause, m, USER, clean_value(m["what"]), "remind", 0.9)


def _task(
    clause: Clause,
    m: re.Match[str],
    subject: str,
    what: str,
    rule: str,
    base: float,
    phrase: str = "needs to",
) -> Candidate:
    owner = "The team" if subject == TEAM else "The user"
    if subject == TEAM:
        phrase = {"needs to": "need to", "plans to": "plan to"}.get(phrase, phrase)
    return Candidate(
        kind="task",
        subject=subject,
        attribute=f"task:{slug(what)}",
        value=what,
        statement=sentence(f"{owner} {phrase} {third_person(_bare(what), named=True)}"),
        confidence=weigh(base, clause.role),
        start=m.start(),
        end=m.end(),
        rule=rule,
    )


def _bare(what: str) -> str:
    """A TODO's text as a verb phrase ("Fix the login bug" -> "fix the login bug")."""
    return what[:1].lower() + what[1:] if what[:2].istitle() else what


def _blocked(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_BLOCKED, clause):
        who = _blocked_subject(m["who"] or m["who2"])
        what = clean_value(m["what"] or m["what2"])
        waiting = m["what2"] is not None
        verb = "is waiting on" if waiting else "is blocked by"
        name = "the user" if who == USER else "the team" if who == TEAM else who
        yield Candidate(
            kind="task",
            subject=who,
            attribute="blocked_by",
            value=what,
            statement=sentence(f"{name} {verb} {third_person(what, named=True)}"),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="blocked",
        )


def _blocked_subject(phrase: str) -> str:
    """ "I" / "we" -> user / team; "the login PR" -> "login PR"."""
    words = phrase.split()
    last = words[-1].casefold()
    if last in {"i", "me"}:
        return USER
    if last in {"we", "us"}:
        return TEAM
    kept = [w for w in words if w.casefold() not in {"the", "our", "my", "and", "but", "so"}]
    return " ".join(kept) or phrase
