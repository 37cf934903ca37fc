from __future__ import annotations

import pytest

from retrieval.language import detect
from retrieval.translate import valid


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Was habe ich gestern mit dem Team besprochen?", "de"),
        ("What did I discuss with the team yesterday?", "en"),
        ("Müller called about the new office", "en"),  # one umlaut does not make it German
        ("Where is the Kindergarten we visited?", "en"),  # nor one borrowed word
        ("Wann ist das nächste Update für den Server?", "de"),  # nor an English word
        ("Wie war das Meeting?", "de"),
        ("Was ist an Weihnachten geplant?", "de"),  # "an" is German too: not an English vote
        ("Größenänderung Überprüfung", "de"),  # no function words, several umlauts
        ("Kubernetes", "unknown"),
        ("", "unknown"),
    ],
)
def test_it_detects_the_query_language(text: str, lang: str) -> None:
    assert detect(text).lang == lang


@pytest.mark.parametrize(
    ("original", "candidate", "ok"),
    [
        ("Wann läuft mein Reisepass ab?", "When does my passport expire?", True),
        ("Wann läuft mein Reisepass ab?", "When does my passport\nexpire?", False),
        ("Wann läuft mein Reisepass ab?", "", False),
        ("Wann läuft mein Reisepass ab?", "x" * 200, False),
        ("Wann läuft mein Reisepass ab?", "<b>When</b> does it expire?", False),
        ("Wann läuft mein Reisepass ab?", "Wann läuft mein Reisepass ab?", False),
        ("Kosten?", "Costs: 50 € / month (approx.)", True),
    ],
)
def test_it_accepts_only_one_plain_bounded_line(original: str, candidate: str, ok: bool) -> None:
    assert valid(original, candidate) is ok
