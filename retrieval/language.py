"""English or German? Decided by function words, not by single characters.

One umlaut ("Müller") or one borrowed word ("Kindergarten", "Update") must not flip a query:
function words ("the", "was", "der", "nicht") carry the language, so the decision needs a clear
majority of them. Umlauts only break ties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Lang = Literal["en", "de", "unknown"]

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# Frequent function words that the other language does not share ("in", "an", "was", "die" excepted
# where ambiguous: "was" and "will" exist in both, so they are left out).
_EN_TEXT = """the a and or of to in on at for with from by is are were be been being
have has had do does did not this that these those it its i you he she we they my your our
their what which who when where why how there here than then about after before would could
should can may must just also very"""
EN = frozenset(_EN_TEXT.split())
_DE_TEXT = """der die das den dem des ein eine einen einem einer und oder aber nicht ist
sind war waren wird werden wurde habe hat hatte haben ich du er sie es wir ihr mein dein sein
unser euer mit von zu zum zur auf aus bei nach über unter für wie wo wann warum welche welcher
welches wer dass auch noch schon nur sehr kein keine gibt immer gestern heute morgen"""
DE = frozenset(_DE_TEXT.split())
_UMLAUT = re.compile(r"[äöüßÄÖÜ]")


@dataclass(frozen=True)
class Detection:
    lang: Lang
    en: int
    de: int


def detect(text: str) -> Detection:
    words = [w.lower() for w in _WORD.findall(text)]
    en = sum(w in EN for w in words)
    de = sum(w in DE for w in words)
    if en > de:
        return Detection("en", en, de)
    if de > en:
        return Detection("de", en, de)
    umlauts = len(_UMLAUT.findall(text))
    if en == de == 0 and umlauts >= 2:  # several umlauts and no function words: German terms
        return Detection("de", en, de)
    return Detection("unknown", en, de)
