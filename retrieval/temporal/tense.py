"""Tense and language of a query, from auxiliaries and cue words (no part-of-speech tagging).

"-ed" verbs alone are too broad a past cue ("scheduled", "planned"), so the past needs an
auxiliary ("did", "was", "have ... decided"; "hatte", "war", "habe ... gemacht"), a subject
right before it ("we decided", "what happened") or a cue word ("ago", "last", "gestern").
German uses the present tense for the future ("was mache ich am Dienstag"), so a few German
present verbs count as a weak future cue.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from retrieval.temporal.intent import Direction
from retrieval.temporal.lexicon import ENGLISH_MARKERS, GERMAN_MARKERS, Language

_PARTICIPLES_EN: Final = (
    r"\w+ed|been|done|seen|made|said|met|had|gone|taken|got|gotten|given|told|found|thought"
    r"|built|sent|spent|left|heard|bought|kept|written|known|shown|begun|run|chosen|read|put"
    r"|set|won|lost|brought|paid|sold|taught|understood|spoken|broken|forgotten"
)
_PAST_EN: Final = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't|ago|last|previous|previously"
    r"|yesterday|earlier|used\s+to)\b"
    # A subject right before a regular past form is the simple past ("what happened", "we
    # decided"); "-ed" after anything else may be an adjective ("the scheduled call"), and
    # "-eed" is mostly a present verb ("we need").
    r"|\b(?:i|we|you|he|she|they|who|what)\s+\w+[^\We]ed\b"
    r"|(?:\b(?:have|has|haven't|hasn't)|'ve)\s+(?:\w+\s+){0,2}?"
    rf"(?:{_PARTICIPLES_EN})\b"
)
_FUTURE_EN: Final = re.compile(
    r"\b(?:will|won't|shall|gonna|plan|plans|planning|next|upcoming|tomorrow)\b"
    r"|'ll\b|\bgoing\s+to\b"
)
_PRESENT_EN: Final = re.compile(
    r"\b(?:now|currently|right\s+now|at\s+the\s+moment|today|tonight|this\s+(?:week|month|year))\b"
)

# German participles: "ge...t"/"ge...en", with an inseparable prefix instead of "ge"
# ("besprochen", "entschieden"), or "...iert"; "geplant"/"vorgesehen" look ahead.
_PARTICIPLE_DE: Final = (
    r"(?!geplant\b|vorgesehen\b)(?:(?:ge|be|ver|er|ent|zer)\w{2,}(?:t|en)|\w{3,}iert)"
)
_PAST_DE: Final = re.compile(
    r"\b(?:hatte|hattest|hatten|hattet|war|warst|waren|wart|wurde|wurden|gestern|vorgestern"
    r"|damals|neulich|kürzlich|letzte[nrsm]?|vorige[nrsm]?|vergangene[nrsm]?|vorletzte[nrsm]?)\b"
    r"|\b(?:habe|hab|hast|hat|haben|habt|bin|bist|ist|sind|seid)\b[^.?!]{0,60}?"
    rf"\b{_PARTICIPLE_DE}\b"
)
_FUTURE_DE: Final = re.compile(
    r"\b(?:werde|wirst|wird|werden|werdet|nächste[nrsm]?|naechste[nrsm]?|kommende[nrsm]?"
    r"|übernächste[nrsm]?|demnächst|bald|geplant|plane|planen|plant|vorgesehen)\b"
    r"|\bhabe\s+ich\b[^.?!]{0,40}?\bvor\s*[?.!]?\s*$"
)
_PRESENT_DE: Final = re.compile(
    r"\b(?:jetzt|gerade|aktuell|momentan|derzeit|heute|diese[nrsm]?\s+(?:woche|monat|jahr))\b"
)
_WEAK_FUTURE_DE: Final = re.compile(
    r"\b(?:mache|machst|macht|machen|tue|tun|steht|stehen|findet|gibt\s+es|läuft|erwartet)\b"
)

_GERMAN: Final = frozenset(GERMAN_MARKERS)
_ENGLISH: Final = frozenset(ENGLISH_MARKERS)
_UMLAUTS: Final = frozenset("äöüß")


_CUES: Final[dict[Language, tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]]] = {
    "en": (_PAST_EN, _FUTURE_EN, _PRESENT_EN),
    "de": (_PAST_DE, _FUTURE_DE, _PRESENT_DE),
}


def detect_tense(text: str, language: Language) -> Direction:
    """Return the direction the grammar of lower-cased `text` points in.

    Only the cues of `language` count (German "was" is "what"). Past and future cues are
    counted, the larger count wins and a tie means "none". Present cues and the weak German
    future count only when neither side has a cue.
    """
    past_cues, future_cues, present_cues = _CUES[language]
    past = len(past_cues.findall(text))
    future = len(future_cues.findall(text))
    if past != future:
        return "past" if past > future else "future"
    if past:
        return "none"
    if present_cues.search(text):
        return "present"
    if language == "de" and _WEAK_FUTURE_DE.search(text):
        return "future"
    return "none"


def detect_language(tokens: Sequence[str]) -> Language:
    """Return "de" when the lower-cased words have more German markers (or words with
    umlauts) than English markers; "en" on a tie."""
    german = sum(1 for token in tokens if token in _GERMAN or not _UMLAUTS.isdisjoint(token))
    english = sum(1 for token in tokens if token in _ENGLISH)
    return "de" if german > english else "en"
