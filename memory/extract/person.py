"""Rewrite what someone said about themselves into a third-person statement.

"I've been using my old laptop" -> "The user has been using their old laptop." A block's
content must stand alone: whoever reads it later does not know who "I" was.
"""

from __future__ import annotations

import re
from typing import Final

from memory.extract.lexicon import words

ADVERBS: Final = words(
    "also just still never always often usually already even actually really finally recently "
    "currently only sometimes mostly basically definitely totally kinda once then now too all "
    "generally normally typically mainly honestly literally absolutely personally originally "
    "initially eventually probably certainly truly seriously especially simply barely hardly "
    "rarely occasionally regularly constantly frequently mainly first last"
)
MODALS: Final = words(
    "can could will would shall should may might must cannot can't couldn't won't wouldn't "
    "shouldn't mustn't"
)
# Past forms that do not end in -ed, and forms that read the same in present and past: none of
# these takes a third-person -s after "I".
IRREGULAR_PAST: Final = words(
    "was were had did went got bought made took saw came gave found thought told knew left "
    "felt kept began brought built caught chose drew drank drove ate fell fought flew forgot "
    "froze grew heard held hid hurt led lent lost meant met paid put quit read ran rode rang "
    "rose said sold sent set shot showed sang sat slept spent stood stole struck swam taught "
    "tore threw understood woke wore won wrote cut let hit cost spread became sought fed bet "
    "dealt dug lay laid lit overcame rebuilt shook shut split spun stuck swore swept upset "
    "withdrew forgave got gotten been done gone seen crept wept leapt dreamt learnt burnt "
    "spelt spilt knelt dwelt bent slid stung swung clung flung wrung hung bled bred sped"
)
# Present-tense verbs that end in -ed like a past form.
_ED_PRESENT: Final = words(
    "need feed seed breed bleed speed proceed succeed exceed embed shred wed bed heed weed plead"
)
_PREFIXES: Final = ("over", "under", "re", "mis", "out", "un", "fore", "with")
_AGREE: Final = {
    "am": "is",
    "'m": "is",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "dont": "doesn't",
    "haven't": "hasn't",
    "were": "was",
    "go": "goes",
}
_PRONOUN: Final = re.compile(
    r"\b(?:I'm|I've|I'd|I'll|I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e're|[Ww]e've|[Ww]e'll|[Ww]e|"
    r"[Oo]ur|[Oo]urs|[Oo]urselves|[Uu]s)\b"
)
_WORD: Final = re.compile(r"\s+([A-Za-z][A-Za-z']*)")
_CONTRACTED: Final = {
    "I'm": "is",
    "I've": "has",
    "I'll": "will",
    "we're": "are",
    "we've": "have",
    "we'll": "will",
}
_PLURAL_FIRST: Final = {
    "we": "they",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
    "us": "them",
}


def third_person(clause: str, *, named: bool = False) -> str:
    """The clause with the speaker's first person turned into "the user" / "they".

    `named` says "the user" was already written before the clause ("The user needs to ..."),
    so "my" reads "their" from the start.
    """
    text = clause.replace("\u2019", "'")
    out: list[str] = []
    position = 0
    for match in _PRONOUN.finditer(text):
        out.append(text[position : match.start()])
        replacement, position = _replace(text, match, named)
        out.append(replacement)
        named = named or "the user" in replacement
    out.append(text[position:])
    return "".join(out)


def _replace(text: str, match: re.Match[str], named: bool) -> tuple[str, int]:
    word = match.group()
    lower = word.lower() if word != "I" else "I"
    if lower in _PLURAL_FIRST:
        return _PLURAL_FIRST[lower], match.end()
    if word in _CONTRACTED or lower in _CONTRACTED:
        subject = "they" if lower.startswith("we") else "the user"
        return f"{subject} {_CONTRACTED.get(word, _CONTRACTED.get(lower, ''))}", match.end()
    if word == "I'd":
        return _would_or_had(text, match.end())
    if word == "I":
        return _subject_and_verb(text, match.end())
    return _oblique(lower, named), match.end()


def _oblique(word: str, named: bool) -> str:
    if word == "my":
        return "their" if named else "the user's"
    if word == "mine":
        return "theirs"
    if word == "myself":
        return "themselves"
    return "them" if named else "the user"  # "me"


def _would_or_had(text: str, end: int) -> tuple[str, int]:
    nxt = _WORD.match(text, end)
    if nxt and is_past(nxt.group(1).lower()):
        return "the user had", end
    return "the user would", end


def _subject_and_verb(text: str, end: int) -> tuple[str, int]:
    """'the user' plus the adverbs and the verb that follow "I", the verb agreed."""
    parts = ["the user"]
    position = end
    while (nxt := _WORD.match(text, position)) is not None:
        token = nxt.group(1)
        position = nxt.end()
        if token.lower() in ADVERBS:
            parts.append(token)
            continue
        parts.append(agree(token))
        return " ".join(parts), position
    return " ".join(parts), position


def agree(verb: str) -> str:
    """The third-person singular of a verb that followed "I" ("prefer" -> "prefers")."""
    lower = verb.lower()
    if lower in _AGREE:
        return _AGREE[lower]
    if (
        lower in MODALS
        or is_past(lower)
        or lower.endswith("n't")
        or "'" in lower
        or not lower.isalpha()
    ):
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def is_past(lower: str) -> bool:
    """ "overslept", "rebuilt", "needed" are past; "need", "exceed" are not."""
    if lower in IRREGULAR_PAST:
        return True
    if lower.endswith("ed") and lower not in _ED_PRESENT:
        return True
    return any(lower.startswith(p) and lower[len(p) :] in IRREGULAR_PAST for p in _PREFIXES)


def sentence(text: str) -> str:
    """`text` as one sentence: single spaces, a capital first letter, a final full stop."""
    body = " ".join(text.split()).strip(" ,;:-\u2013\u2014")
    body = body.rstrip(".!?\u2026 ")
    if body.endswith(")") and body.count(")") > body.count("("):
        body = body[:-1].rstrip(".!?\u2026 ")
    if not body:
        return ""
    return body[0].upper() + body[1:] + "."
