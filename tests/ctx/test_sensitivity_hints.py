"""The detectors' hints only skip work: with them, `detect` finds exactly what the bare
regexes find (every test case of test_sensitivity, and generated text around the hints)."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.sensitivity import ASCII_TWINS, DETECTORS, _folded, detect
from tests.ctx.test_sensitivity import CREDENTIAL_CASES, NEGATIVES, PERSONAL_CASES


def _bare(text: str) -> tuple[str, ...]:
    """The detectors that fire when every regex runs over the whole text."""
    fired = {
        d.name
        for d in DETECTORS
        if any(d.check is None or d.check(m) for m in d.pattern.finditer(text))
    }
    return tuple(sorted(fired))


CASES = [text for text, _ in CREDENTIAL_CASES + PERSONAL_CASES] + NEGATIVES
# Case changes and the letters that case-insensitive matching pairs with ASCII ones.
VARIANTS = [
    *CASES,
    *(t.upper() for t in CASES),
    *(t.lower() for t in CASES),
    "db.PASSWORD = hunter2hunter2",
    "db.pa\u017f\u017fword = hunter2hunter2",  # long s: matches "s" under IGNORECASE
    "api_\u212aey = Zx81kfQ09aZx81",  # Kelvin sign: matches "k"
    "TELEFON: 030 1234567",
    "Mobil 0171 1234567",
    "ruf an: +49 30 12345678 und (555) 123-4567",
    # Non-ASCII text that folds (an ellipsis, accents) and text with the other twins.
    "caf\u00e9 \u2026 db.PASSWORD = hunter2hunter2 [\u2026]",
    "r\u00e9sum\u00e9: Telefon 030 1234567 \u2014 das Passwort ist Sommer2024!",
    "\u2026 api_\u212aey = Zx81kfQ09aZx81",  # the Kelvin sign beside an ellipsis
    "\u2026 db.pa\u017f\u017fword = hunter2hunter2",
    "\u2026 PASSWORD_\u0130D: Zx81kfQ09aZx81 and the pa\u017f\u017fphrase Sommer2024!",
    "\u2026 \u0131 pwd=hunter2hunter2",
]


@pytest.mark.parametrize("text", VARIANTS)
def test_it_finds_what_the_bare_regexes_find(text: str) -> None:
    assert detect(text).reasons == _bare(text)


FRAGMENTS = st.sampled_from(
    [
        *(hint for d in DETECTORS for hint in d.hints + d.folded_hints),
        *(hint.upper() for d in DETECTORS for hint in d.folded_hints),
        "AKIA" + "IOSFODNN7EXAMPLE",
        "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
        "sk-" + "T3BlbkFJ1234abcdEFGH5678ijkl",
        "jane.doe@gmail.com",
        "+49 30 12345678",
        "password",
        "Passwort",
        "api_key",
        "=",
        ": ",
        " ",
        "\n",
        "_",
        "-",
        "Zx81kfQ09a",
        "hunter2hunter2",
        "\u212a",
        "\u017f",
        "\u0130",
        "\u0131",
        "ä",
        "\u00e9",
        "\u2026",
        "\u2014",
        "0301234567",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=12).map("".join))
def test_it_agrees_with_the_bare_regexes_on_generated_text(text: str) -> None:
    assert detect(text).reasons == _bare(text)


def test_it_knows_every_character_that_matches_an_ascii_letter_ignoring_case() -> None:
    letter = re.compile("[a-z]", re.IGNORECASE)
    twins = {c for c in map(chr, range(128, sys.maxunicode + 1)) if letter.fullmatch(c)}
    assert twins == set(ASCII_TWINS)


def test_it_looks_hints_up_in_folded_text_unless_a_twin_is_in_it() -> None:
    assert _folded("Caf\u00e9 \u2026 PASSWORD") == "caf\u00e9 \u2026 password"
    for twin in ASCII_TWINS:
        assert _folded(f"\u2026 pa{twin}sword") is None
