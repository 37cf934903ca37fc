"""The extractor as a whole (memory/extract/rules.py): evidence, determinism, bounds."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.extract import Extractor, ExtractResult, RuleExtractor, Unit
from tests.memory.helpers import WHEN, run

ROOT = Path(__file__).resolve().parents[2]
CONVERSATION = (
    "I prefer Vim over VS Code. We deploy on Tuesdays.",
    "No, it's Thursday. My wife's name is Anna and I work at Acme Corp.",
    "Bob (Robert Smith) is blocked by the security review. TODO: ship the beta",
    "I actually redeemed a $5 coupon last Sunday, and do you know any apps?",
    "Ich wohne in Köln. The error was KeyError: 'id'. I fixed it by adding a default.",
)


def assert_evidence_exact(result: ExtractResult, texts: list[str]) -> None:
    spans = [e.evidence for e in result.extractions]
    spans += [s for e in result.extractions for s in e.support]
    spans += [r.evidence for r in result.relations]
    spans += [ev for entity in result.entities for ev in entity.evidence]
    for ev in spans:
        assert texts[ev.unit_index][ev.start : ev.end] == ev.quote


def test_it_quotes_every_span_exactly_at_its_offsets() -> None:
    result = run(*CONVERSATION)
    assert len(result.extractions) >= 10
    assert_evidence_exact(result, list(CONVERSATION))


def test_it_gives_the_same_result_every_time() -> None:
    first = run(*CONVERSATION)
    assert run(*CONVERSATION) == first
    assert RuleExtractor().extract([Unit("user", CONVERSATION[0])]) == RuleExtractor().extract(
        [Unit("user", CONVERSATION[0])]
    )


def test_it_stamps_time_speaker_and_source() -> None:
    later = datetime(2024, 6, 1, 8, 0)
    result = RuleExtractor().extract(
        [Unit("user", "I live in Oslo.", WHEN, "a"), Unit("user", "I live in Rome.", later, "b")]
    )
    stamps = [(e.value, e.time, e.speaker, e.evidence.source_id) for e in result.extractions]
    assert stamps == [("Oslo", WHEN, "user", "a"), ("Rome", later, "user", "b")]


def test_it_orders_results_by_position() -> None:
    result = run(*CONVERSATION)
    positions = [(e.evidence.unit_index, e.evidence.start) for e in result.extractions]
    assert positions == sorted(positions)


def test_it_is_an_extractor() -> None:
    extractor: Extractor = RuleExtractor()
    assert extractor.extract([]) == ExtractResult()


def test_it_bounds_the_scan_of_a_huge_message() -> None:
    text = "x " * 20_000 + "I live in Oslo."
    assert RuleExtractor().extract([Unit("user", text)]).extractions == ()


def test_it_imports_without_django() -> None:
    code = (
        "import sys, memory.extract; "
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False)
    assert done.returncode == 0


# Words and punctuation the rules react to, so random sentences reach every rule family.
_SALAD = (
    "I my we you prefer like hate love work at live in moved to decided TODO need to blocked "
    "by waiting on no actually meant is was the a Vim Berlin Acme ( ) , . ? ! - : ; \" ' @bob "
    "docs/a.py error fixed Bob Robert Smith aka from now on don't always never 9:30 Tuesday "
    "yesterday ich wohne in Köln mein Name ist \n"
)
_WORDS = st.sampled_from(_SALAD.split(" "))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_WORDS, max_size=40).map(" ".join), min_size=1, max_size=4))
def test_it_never_raises_and_quotes_exactly_on_random_word_salad(texts: list[str]) -> None:
    result = RuleExtractor().extract([Unit("user", t, WHEN) for t in texts])
    assert_evidence_exact(result, texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=3))
def test_it_never_raises_and_quotes_exactly_on_random_text(texts: list[str]) -> None:
    result = RuleExtractor().extract([Unit("user", t) for t in texts])
    assert_evidence_exact(result, texts)
