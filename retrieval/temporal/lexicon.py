"""Word tables of the temporal parser (English and German), all lower case.

Every matcher builds its regular expressions from these tables at import time, so adding a
word here is enough for the parser, the candidate pre-check and the language guess to see it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, Literal

Language = Literal["en", "de"]

WEEKDAYS: Final[dict[str, int]] = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
    "montag": 0,
    "dienstag": 1,
    "mittwoch": 2,
    "donnerstag": 3,
    "freitag": 4,
    "samstag": 5,
    "sonnabend": 5,
    "sonntag": 6,
}

# Habitual forms: German adverbs ("dienstags"), German dative plural ("an Dienstagen") and
# English plurals ("on Tuesdays").
WEEKDAY_HABITUAL: Final[dict[str, int]] = {
    **{f"{name}s": day for name, day in WEEKDAYS.items()},
    **{f"{name}en": day for name, day in WEEKDAYS.items() if not name.endswith("day")},
}

MONTHS: Final[dict[str, int]] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "januar": 1,
    "jänner": 1,
    "februar": 2,
    "märz": 3,
    "maerz": 3,
    "mai": 5,
    "juni": 6,
    "juli": 7,
    "oktober": 10,
    "dezember": 12,
}

MONTH_ABBREVIATIONS: Final[dict[str, int]] = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "mär": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "okt": 10,
    "nov": 11,
    "dec": 12,
    "dez": 12,
}

ALL_MONTHS: Final[dict[str, int]] = {**MONTHS, **MONTH_ABBREVIATIONS}

# Month names that are also common words ("may", "march") or names ("August"): the parser
# takes them only with a preposition, a qualifier, a day or a year next to them.
AMBIGUOUS_MONTHS: Final[frozenset[str]] = frozenset({"may", "march", "august"})

NUMBERS: Final[dict[str, int]] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a few": 3,
    "few": 3,
    "a couple of": 2,
    "couple of": 2,
    "several": 3,
    "ein": 1,
    "eine": 1,
    "einem": 1,
    "einen": 1,
    "einer": 1,
    "eins": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "fuenf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    "zwoelf": 12,
    "ein paar": 3,
    "einigen": 3,
    "paar": 3,
}

UNITS: Final[dict[str, str]] = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "tag": "day",
    "tage": "day",
    "tagen": "day",
    "woche": "week",
    "wochen": "week",
    "monat": "month",
    "monate": "month",
    "monaten": "month",
    "jahr": "year",
    "jahre": "year",
    "jahren": "year",
}

# Qualifier stems and their offset in periods; German stems take an inflection ending.
QUALIFIERS_DE: Final[dict[str, int]] = {
    "übernächst": 2,
    "uebernächst": 2,
    "uebernaechst": 2,
    "vorletzt": -2,
    "letzt": -1,
    "vorig": -1,
    "vergangen": -1,
    "dies": 0,
    "nächst": 1,
    "naechst": 1,
    "kommend": 1,
}

QUALIFIERS_EN: Final[dict[str, int]] = {
    "last": -1,
    "past": -1,
    "previous": -1,
    "prior": -1,
    "this": 0,
    "current": 0,
    "next": 1,
    "coming": 1,
    "following": 1,
}

# Day offsets of the simple keywords.
KEYWORDS: Final[dict[str, int]] = {
    "heute": 0,
    "gestern": -1,
    "vorgestern": -2,
    "morgen": 1,
    "übermorgen": 2,
    "uebermorgen": 2,
    "today": 0,
    "yesterday": -1,
    "tomorrow": 1,
    "day before yesterday": -2,
    "the day before yesterday": -2,
    "day after tomorrow": 2,
    "the day after tomorrow": 2,
}

# Keywords that tolerate one typo. "morgen" is left out on purpose: one edit away are
# "morgan" (Morgan Stanley) and "morgens" (in the mornings).
FUZZY_KEYWORDS: Final[tuple[str, ...]] = (
    "gestern",
    "vorgestern",
    "übermorgen",
    "yesterday",
    "tomorrow",
)

HOLIDAYS: Final[dict[str, str]] = {
    "christmas eve": "christmas_eve",
    "christmas day": "christmas_day",
    "christmas": "christmas",
    "xmas": "christmas",
    "heiligabend": "christmas_eve",
    "heiligen abend": "christmas_eve",
    "heiliger abend": "christmas_eve",
    "weihnachten": "christmas",
    "weihnachtstage": "christmas",
    "weihnachtsfeiertage": "christmas",
    "weihnachtsfeiertagen": "christmas",
    "new year's eve": "new_years_eve",
    "new years eve": "new_years_eve",
    "silvester": "new_years_eve",
    "new year's day": "new_year",
    "new years day": "new_year",
    "new year's": "new_year",
    "new year": "new_year",
    "neujahr": "new_year",
    "neujahrstag": "new_year",
    "easter sunday": "easter_sunday",
    "easter monday": "easter_monday",
    "easter": "easter",
    "ostern": "easter",
    "ostersonntag": "easter_sunday",
    "ostermontag": "easter_monday",
    "good friday": "good_friday",
    "karfreitag": "good_friday",
    "ascension day": "ascension",
    "ascension": "ascension",
    "christi himmelfahrt": "ascension",
    "himmelfahrt": "ascension",
    "pentecost": "pentecost",
    "whitsun": "pentecost",
    "whitsunday": "pentecost",
    "whit sunday": "pentecost",
    "whit monday": "whit_monday",
    "pfingsten": "pentecost",
    "pfingstsonntag": "pentecost",
    "pfingstmontag": "whit_monday",
}

# Hour of day (0..24) that each part of the day is centred on.
TIMES_OF_DAY: Final[dict[str, float]] = {
    "früh": 8.0,
    "morgen": 8.0,
    "vormittag": 10.0,
    "mittag": 12.5,
    "nachmittag": 15.0,
    "abend": 20.0,
    "nacht": 1.0,
    "morning": 8.0,
    "noon": 12.5,
    "midday": 12.5,
    "afternoon": 15.0,
    "evening": 20.0,
    "night": 1.0,
    "tonight": 22.0,
}

SEGMENTS: Final[dict[str, str]] = {
    "anfang": "begin",
    "beginn": "begin",
    "mitte": "mid",
    "ende": "end",
    "beginning": "begin",
    "start": "begin",
    "early": "begin",
    "middle": "mid",
    "mid": "mid",
    "end": "end",
    "late": "end",
    "later": "end",
}

# Function words that tell the two languages apart; "was" and "in" belong to both.
GERMAN_MARKERS: Final[tuple[str, ...]] = (
    "der",
    "die",
    "das",
    "und",
    "oder",
    "ich",
    "wir",
    "habe",
    "hat",
    "haben",
    "ist",
    "sind",
    "war",
    "nicht",
    "mit",
    "am",
    "im",
    "vor",
    "seit",
    "bis",
    "wann",
    "von",
    "zum",
    "zur",
    "für",
    "über",
    "auf",
    "ein",
    "eine",
    "jeden",
    "immer",
    "letzte",
    "letzten",
    "nächste",
    "nächsten",
    "woche",
    "monat",
    "jahr",
    "tagen",
    "heute",
    "gestern",
    "vorgestern",
    "morgen",
    "übermorgen",
    "wochenende",
    "wochenenden",
    "letzter",
    "zeit",
    "tagen",
    "wochen",
    "monaten",
    "jahren",
    "quartal",
    "anfang",
    "ende",
    "mitte",
    "kürzlich",
    "neulich",
    "morgens",
    "vormittags",
    "mittags",
    "nachmittags",
    "abends",
    "nachts",
    "monatsanfang",
    "monatsmitte",
    "monatsende",
    "ostern",
    "weihnachten",
    "heiligabend",
    "silvester",
    "neujahr",
    "karfreitag",
    "ostermontag",
    "himmelfahrt",
    "pfingsten",
    "januar",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "oktober",
    "dezember",
    *(name for name in WEEKDAYS if not name.endswith("day")),
    *(name for name in WEEKDAY_HABITUAL if not name.endswith("days")),
)

ENGLISH_MARKERS: Final[tuple[str, ...]] = (
    "the",
    "and",
    "or",
    "what",
    "did",
    "we",
    "i",
    "is",
    "are",
    "on",
    "of",
    "to",
    "at",
    "for",
    "last",
    "next",
    "week",
    "month",
    "year",
    "days",
    "ago",
    "since",
    "until",
    "every",
    "today",
    "yesterday",
    "tomorrow",
    "will",
    "have",
    "weekend",
    "weekends",
    "morning",
    "afternoon",
    "evening",
    "night",
    "tonight",
    "recently",
    "lately",
    "christmas",
    "easter",
    "pentecost",
    "whitsun",
    "january",
    "february",
    "march",
    "june",
    "july",
    "october",
    "december",
    "quarter",
    *(name for name in WEEKDAYS if name.endswith("day")),
    *(name for name in WEEKDAY_HABITUAL if name.endswith("days")),
)


def alternation(words: Iterable[str]) -> str:
    """Return a regex alternation of `words`, longest first, spaces matching any whitespace."""
    ordered = sorted(set(words), key=lambda word: (-len(word), word))
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in ordered)


def squash(phrase: str) -> str:
    """Return `phrase` with runs of whitespace as one space, for table look-ups."""
    return " ".join(phrase.split())


def qualifier_offset(word: str | None) -> int | None:
    """Return the period offset of a qualifier ("letzten" -> -1), or None for no qualifier."""
    if word is None:
        return None
    if word in QUALIFIERS_EN:
        return QUALIFIERS_EN[word]
    for stem, offset in QUALIFIERS_DE.items():
        if word.startswith(stem):
            return offset
    return None


WEEKDAY_RX: Final = alternation(WEEKDAYS)
HABITUAL_RX: Final = alternation(WEEKDAY_HABITUAL)
MONTH_RX: Final = alternation(ALL_MONTHS)
NUMBER_RX: Final = rf"(?:\d{{1,3}}|{alternation(NUMBERS)})"
UNIT_RX: Final = alternation(UNITS)
QUALIFIER_DE_RX: Final = rf"(?:{alternation(QUALIFIERS_DE)})(?:e[nrsm]?)?"
QUALIFIER_EN_RX: Final = alternation(QUALIFIERS_EN)
QUALIFIER_RX: Final = rf"(?:{QUALIFIER_DE_RX}|{QUALIFIER_EN_RX})"
KEYWORD_RX: Final = alternation(KEYWORDS)
HOLIDAY_RX: Final = alternation(HOLIDAYS)
