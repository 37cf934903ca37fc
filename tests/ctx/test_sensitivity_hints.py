"""The detectors' hints only skip work: with them, `detect` finds exactly what the bare
regexes find (every test case of test_sensitivity, and generated text around the hints)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.sensitivity import DETECTORS, detect
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
        "ä",
        "0301234567",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=12).map("".join))
def test_it_agrees_with_the_bare_regexes_on_generated_text(text: str) -> None:
    assert detect(text).reasons == _bare(text)
