from __future__ import annotations

from retrieval.chunking import MAX_CHUNKS, WINDOW_WORDS, windows


def test_it_keeps_a_short_block_in_one_window_with_its_title() -> None:
    assert windows("Docker", "We use compose.") == ["Docker\nWe use compose."]


def test_it_never_returns_nothing() -> None:
    assert windows("Title only", "") == ["Title only"]


def test_it_splits_long_text_on_sentences_within_the_window() -> None:
    sentence = "word " * 50 + "end."
    chunks = windows("T", " ".join([sentence] * 10))
    assert len(chunks) == 10
    assert all(len(c.split()) <= WINDOW_WORDS + 1 for c in chunks)
    assert all(c.startswith("T\n") for c in chunks)


def test_it_cuts_a_sentence_longer_than_a_window() -> None:
    chunks = windows("T", "x " * (WINDOW_WORDS * 2 + 5))
    assert [len(c.split()) - 1 for c in chunks] == [WINDOW_WORDS, WINDOW_WORDS, 5]


def test_it_bounds_the_number_of_windows() -> None:
    assert len(windows("T", "word. " * 50_000)) == MAX_CHUNKS


def test_with_sections_no_window_spans_a_section_break() -> None:
    text = "one two three.\n\n\nfour five.\n\n\n\nsix."
    assert windows("", text, sections=True) == ["one two three.", "four five.", "six."]
    assert windows("", text) == ["one two three. four five. six."]
