"""Facts about the user with a known attribute: "my X is Y", names of the people (and pets)
around them, where they work and live, what they use, own and count, and their habits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from memory.extract.base import USER
from memory.extract.context import (
    ADV,
    SUBJ,
    SUBJ_WE,
    TEXT_CHAR,
    VALUE,
    Candidate,
    Clause,
    clean_value,
    finditer,
    owner_allowed,
    subject_allowed,
    subject_of,
    weigh,
)
from memory.extract.lexicon import (
    NUMBER_WORDS,
    OCCUPATIONS,
    RELATION_WORDS,
    category_of,
    number_value,
    slug,
    words,
)
from memory.extract.person import is_past, sentence, third_person

# A person's name: one or two capitalised words ("Anna", "Mary-Jane", "O'Brien"); the
# possessive "'s" is no part of it.
_NAME_WORD: Final = r"[A-Z][a-z]+(?:-[A-Z]?[a-z]+|'[A-Z][a-z]+)?"
NAME: Final = rf"{_NAME_WORD}(?:\s+{_NAME_WORD})?"
# A proper name: capitalised words (inner dots allowed: "Next.js"), joined by single spaces and
# a few particles; never the pronoun "I", never across a sentence's full stop.
_PROPER_WORD: Final = r"(?!I\b)[A-Z0-9][\w&'+-]*(?:\.[\w&'+-]+)*"
PROPER: Final = (
    rf"(?!I\b)[A-Z][\w&'+-]*(?:\.[\w&'+-]+)*"
    rf"(?:[ ](?:(?:of|and|de|du|la|von|van|&|the)[ ])?{_PROPER_WORD})*"
)
_NOT_NAMES: Final = words(
    "I The A An And But So Then My We It This That On In At For Monday Tuesday Wednesday "
    "Thursday Friday Saturday Sunday January February March April May June July August "
    "September October November December Christmas Easter Thanksgiving Oh Yes No Hi Hey "
    "Thanks Also Just Anyway Well Which Who What When Where Why How Do Does Did Is Are Was "
    "Were Can Could Would Should Will He She They Our Your His Her Their Its Since Because "
    "Although Though If Some Any Every Many Most"
)
_RELATIONS: Final = "|".join(sorted(RELATION_WORDS, key=len, reverse=True))
_POSS: Final = r"(?P<poss>\b[Mm]y|\b[Oo]ur|\b[Yy]our|\b(?:[Tt]he\s+)?[Uu]ser's)"

_MY_X_IS: Final = re.compile(
    rf"{_POSS}\s+(?P<attr>(?:[a-z][\w-]*(?:'s)?\s+){{0,3}}?[a-z][\w-]*)"
    rf"\s+(?P<verb>is|are|was|were|has been|have been)\s+(?P<neg>not\s+)?"
    rf"(?!a\s+(?:bit|little|lot)\b|so\b|very\b|really\b|pretty\b|too\b|getting\b|going\b){VALUE}",
)
# "my question is ..." is conversation, not a fact about anyone.
_CONVERSATIONAL: Final = words(
    "question questions point bad pleasure apologies apology guess thought thoughts answer "
    "response request understanding worry hope reason concern issue problem main "
    "suggestion idea ideas plan first second next last favorite favourite"
)
_RELATIVE_NAMED: Final = re.compile(
    rf"\b[Mm]y\s+(?:(?i:little|big|older|younger|best|old|new|late|ex-|baby|twin|oldest|"
    rf"youngest|dear|good)\s+)?(?P<rel>(?i:{_RELATIONS}))"
    rf"(?:,\s+|\s+(?i:named|called|whose name is)\s+|\s+)(?P<name>{NAME})\b"
)
_NAMED_IS_MY: Final = re.compile(
    rf"\b(?P<name>{NAME})(?:\s*\([^)\n]{{1,60}}\))?\s+(?:is|was)\s+(?:also\s+)?[Mm]y\s+"
    rf"(?:(?i:little|big|older|younger|best|old|new|ex-|twin)\s+)?(?P<rel>(?i:{_RELATIONS}))\b"
)
_EMPLOYER: Final = re.compile(
    rf"{SUBJ}\s*(?:{ADV}\s+)*(?P<verb>work|works|worked|am working|'m working|is working|"
    r"are working|have been working|'ve been working|has been working|started working|"
    r"used to work|intern|interned|am interning|'m interning)"
    rf"\s+(?:at|for)\s+(?P<org>{PROPER})",
)
_OCCUPATION: Final = re.compile(
    rf"{SUBJ}\s*(?:{ADV}\s+)*(?P<verb>am|'m|are|is|was|were|work as|worked as|"
    r"used to be|have been|'ve been|has been)\s+(?:working as\s+)?(?:an?\s+)"
    r"(?P<role>(?:[\w-]+\s+){0,3}?(?:" + "|".join(sorted(OCCUPATIONS)) + r"))\b"
    rf"(?:\s+(?:at|for|with)\s+(?P<org>{PROPER}|an?\s+[a-z][\w\s-]{{2,40}}?(?=[,.;!?]|$)))?",
    re.IGNORECASE,
)
_PREVIOUS_ROLE: Final = re.compile(
    r"\b[Mm]y\s+(?:previous|last|old|former|first)\s+(?:role|job|position|career)\s+as\s+"
    r"(?:an?\s+)?(?P<role>[^,.;:!?()\n]{3,80}?)(?=\s*[,.;:!?()\n]|\s+(?:and|but|so|where|"
    r"when|I)\b|\s*$)"
)
_PLACE: Final = re.compile(
    rf"{SUBJ_WE}\s*(?:{ADV}\s+)*(?P<verb>live|lives|am living|'m living|are living|"
    r"have lived|'ve lived|am based|'m based|are based|is based|moved|have moved|'ve moved|"
    r"relocated|am moving|'m moving|are moving|grew up|was born|am from|'m from|are from|is from|"
    r"come from|comes from|am originally from|'m originally from)"
    rf"\s+(?:back\s+)?(?:in|to|from|at)?\s*(?P<place>{PROPER})",
)
_PLACE_ATTRIBUTE: Final = (
    ("grew", "grew_up_in", "grew up in"),
    ("born", "birthplace", "was born in"),
    ("from", "origin", "is from"),
    ("moving", "moving_to", "is moving to"),
    ("", "lives_in", "lives in"),
)
_USES: Final = re.compile(
    rf"{SUBJ_WE}\s*(?:{ADV}\s+)*(?P<verb>use|uses|am using|'m using|are using|have been using|"
    r"'ve been using|has been using|switched to|use mostly|rely on|relies on)\s+"
    r"(?P<value>(?:an?\s+|the\s+)?[\w+#.'-]+(?:\s+[\w+#.'-]+){0,4}?)"
    r"(?=\s+(?:for|to|in|on|at|with|because|since|and\s+(?:I|we|it|then|my)|but|as|instead|"
    r"every|daily|that|which|"
    r"now|lately|these|all|a lot)\b|\s*[,.;:!?()\n]|\s*$)",
)
_COUNT: Final = re.compile(
    rf"{SUBJ_WE}\s*(?:{ADV}\s+)*(?:have|has|own|owns|'ve got|have got)\s+"
    rf"(?P<n>\d{{1,5}}|{'|'.join(NUMBER_WORDS)})\s+(?P<what>(?:[a-z][\w-]*\s+){{0,2}}?[a-z][\w-]*s)\b",
    re.IGNORECASE,
)
_HABIT: Final = re.compile(
    r"\b(?P<subj>I)\s+(?P<adv>usually|always|never|often|normally|typically|regularly|"
    rf"generally|rarely|sometimes)\s+(?P<vp>[a-z]{TEXT_CHAR}{{3,100}})",
)
_REMEMBER: Final = re.compile(
    r"(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget|make a note)"
    r"(?:\s+that|:)\s+(?P<what>[^\n]{3,200}?)\s*[.!]?$",
    re.IGNORECASE,
)


def facts(clause: Clause) -> Iterator[Candidate]:
    """Attribute facts of one clause. Questions assert nothing, except what they presuppose
    about the user's own people ("can my sister Anna come?"), which `named_relatives` keeps."""
    yield from named_relatives(clause)
    # An assistant's "you work at ...", "you have two options" is advice or a guess far more
    # often than a restatement: facts come from the user and from notes only.
    if clause.question or clause.role not in {"user", "document"}:
        return
    for rule in (_my_x_is, _employer, _occupation, _previous_role, _place, _uses, _count):
        yield from rule(clause)
    yield from _habit(clause)
    yield from _remember(clause)


def _my_x_is(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_MY_X_IS, clause):
        attr = m["attr"].replace("'s", "")
        words = attr.split()
        if words[0] in _CONVERSATIONAL or not owner_allowed(clause.role, m["poss"]):
            continue
        value = clean_value(m["value"])
        verb = m["verb"]
        if words[-1] == "name" and len(words) > 1 and words[-2] in RELATION_WORDS:
            attribute = f"{words[-2]}_name"
        elif words[-1] in RELATION_WORDS and re.fullmatch(NAME, value):
            attribute = f"{words[-1]}_name"
        else:
            attribute = slug(attr)
        owner = "the team's" if m["poss"].casefold() == "our" else "the user's"
        not_ = "not " if m["neg"] else ""
        yield Candidate(
            kind="fact",
            subject="team" if owner == "the team's" else USER,
            attribute=attribute,
            value=value,
            statement=sentence(
                f"{owner} {m['attr']} {verb} {not_}{third_person(value, named=True)}"
            ),
            confidence=weigh(0.85, clause.role),
            start=m.start(),
            end=m.end(),
            rule="my_x_is",
            negated=m["neg"] is not None,
        )


def named_relatives(clause: Clause) -> Iterator[Candidate]:
    """ "my sister Anna", "my dog, Max," "my friend named Sarah"."""
    if clause.role not in {"user", "document"}:
        return
    matches = [*finditer(_RELATIVE_NAMED, clause), *finditer(_NAMED_IS_MY, clause)]
    for m in matches:
        name = m["name"]
        first = name.split()[0]
        if first in _NOT_NAMES:
            continue
        rel = m["rel"].casefold()
        yield Candidate(
            kind="fact",
            subject=USER,
            attribute=f"{rel}_name",
            value=name,
            statement=sentence(f"The user's {rel} is named {name}"),
            confidence=weigh(0.6 if clause.question else 0.85, clause.role),
            start=m.start(),
            end=m.end(),
            rule="relative_named",
        )


def _employer(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_EMPLOYER, clause):
        org = m["org"]
        if not subject_allowed(clause.role, m["subj"]) or org.split()[0] in _NOT_NAMES:
            continue
        verb = m["verb"].casefold()
        former = verb in {"worked", "used to work", "interned"}
        attribute = "former_employer" if former else "employer"
        phrase = "used to work at" if former else "works at"
        yield _fact(clause, m, attribute, org, f"The user {phrase} {org}", 0.9, "employer")


def _occupation(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_OCCUPATION, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        role = clean_value(m["role"])
        verb = m["verb"].casefold()
        former = verb in {"was", "were", "worked as", "used to be"}
        attribute = "former_occupation" if former else "occupation"
        text = f"The user {'was' if former else 'is'} {_article(role)} {role}"
        if m["org"]:
            text += f" at {clean_value(m['org'])}"
        yield _fact(clause, m, attribute, role, text, 0.85, "occupation")


def _previous_role(clause: Clause) -> Iterator[Candidate]:
    if clause.role not in {"user", "document"}:
        return
    for m in finditer(_PREVIOUS_ROLE, clause):
        role = clean_value(m["role"])
        text = f"The user previously worked as {_article(role)} {role}"
        yield _fact(clause, m, "former_occupation", role, text, 0.8, "previous_role")


def _article(noun: str) -> str:
    return "an" if noun[:1].casefold() in "aeiou" else "a"


def _place(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_PLACE, clause):
        place = m["place"]
        if not subject_allowed(clause.role, m["subj"]) or place.split()[0] in _NOT_NAMES:
            continue
        verb = m["verb"].casefold()
        attribute, phrase = next((a, p) for key, a, p in _PLACE_ATTRIBUTE if key in verb)
        if "moved" in verb or "relocated" in verb:
            phrase = "moved to"
        yield _fact(clause, m, attribute, place, f"The user {phrase} {place}", 0.9, "place")


def _uses(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_USES, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        value = clean_value(re.sub(r"^(?:an?|the)\s+", "", m["value"]))
        if value.split()[0].casefold() in {"it", "this", "that", "them", "these", "those", "some"}:
            continue
        subject = subject_of(m["subj"])
        category = category_of(value)
        owner = "The team" if subject == "team" else "The user"
        yield Candidate(
            kind="fact",
            subject=subject,
            attribute=category or "uses",
            value=value,
            statement=sentence(f"{owner} uses {third_person(value, named=True)}"),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="uses",
        )


def _count(clause: Clause) -> Iterator[Candidate]:
    for m in finditer(_COUNT, clause):
        if not subject_allowed(clause.role, m["subj"]):
            continue
        what = m["what"]
        number = number_value(m["n"])
        subject = subject_of(m["subj"])
        owner = "The team" if subject == "team" else "The user"
        yield Candidate(
            kind="fact",
            subject=subject,
            attribute=f"count_{slug(what, max_words=3)}",
            value=number,
            statement=sentence(f"{owner} has {m['n']} {third_person(what, named=True)}"),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="count",
        )


def _habit(clause: Clause) -> Iterator[Candidate]:
    if clause.role not in {"user", "document"}:
        return
    for m in finditer(_HABIT, clause):
        if is_past(m["vp"].split()[0].casefold()):
            continue  # "I never realized ..." tells of a moment, not a habit
        text = clause.text[m.start() : m.end()]
        yield Candidate(
            kind="fact",
            subject=USER,
            attribute="habit",
            value=clean_value(m["vp"]),
            statement=sentence(third_person(text)),
            confidence=weigh(0.8, clause.role),
            start=m.start(),
            end=m.end(),
            rule="habit",
            negated=m["adv"] == "never",
        )


def _remember(clause: Clause) -> Iterator[Candidate]:
    """ "Remember that my train leaves at 7": an explicit request to keep a fact."""
    if clause.role not in {"user", "document"}:
        return
    m = _REMEMBER.match(clause.text, clause.body_start(), clause.end)
    if m is None:
        return
    what = m["what"]
    yield Candidate(
        kind="fact",
        subject=USER,
        attribute="note",
        value=clean_value(what),
        statement=sentence(third_person(what)),
        confidence=weigh(0.9, clause.role),
        start=m.start(),
        end=m.end(),
        rule="remember",
    )


def _fact(
    clause: Clause, m: re.Match[str], attribute: str, value: str, text: str, base: float, rule: str
) -> Candidate:
    return Candidate(
        kind="fact",
        subject=USER,
        attribute=attribute,
        value=value,
        statement=sentence(text),
        confidence=weigh(base, clause.role),
        start=m.start(),
        end=m.end(),
        rule=rule,
    )


__all__ = ["NAME", "PROPER", "VALUE", "facts", "named_relatives"]
