"""The chunkers on literal documents (pure: no database)."""

from __future__ import annotations

import json

from refindex.chunk import chunk, detect, html_to_markdown
from refindex.chunk.base import HARD_MAX, MAX_CHUNK, size
from refindex.vocabulary import distinctive, edit_distance, words


def titles(content: str, kind: str, label: str = "doc") -> list[str]:
    return [c.title for c in chunk(content, kind, label)]


def test_it_titles_markdown_chunks_by_heading_path_up_to_h4() -> None:
    doc = (
        "intro\n\n# A\n\na\n\n## B\n\nb\n\n### C\n\nc\n\n#### D\n\nd\n\n##### E\n\ne\n\n# F\n\nf\n"
    )
    assert titles(doc, "markdown") == ["doc", "A", "A > B", "A > B > C", "A > B > C > D", "F"]
    assert "##### E\n\ne" in chunk(doc, "markdown", "doc")[4].text  # H5 stays in its section


def test_it_splits_at_horizontal_rules_and_reads_setext_headings() -> None:
    doc = "Title\n=====\n\none\n\n---\n\ntwo\n\nSub\n---\n\nthree\n"
    assert titles(doc, "markdown") == ["Title", "Title (2)", "Title > Sub"]


def test_it_keeps_a_fenced_code_block_whole() -> None:
    code = "\n".join(["```python", "# not a heading", "", "---", *["x = 1"] * 1500, "```"])
    doc = f"# Code\n\nBefore.\n\n{code}\n\nAfter.\n"
    parts = chunk(doc, "markdown", "doc")
    assert size(code) > MAX_CHUNK
    assert [c.title for c in parts] == ["Code", "Code (part 2)", "Code (part 3)"]
    assert [c.text for c in parts] == ["# Code\n\nBefore.", code, "After."]


def test_it_cuts_a_fence_only_past_the_hard_limit_and_fences_each_part() -> None:
    code = "```\n" + "y = 2\n" * (HARD_MAX // 6 + 100) + "```"
    parts = chunk(f"# Big\n\n{code}\n", "markdown", "doc")
    assert len(parts) > 2 and all(size(p.text) <= HARD_MAX for p in parts)
    assert all(p.text.startswith("```\n") and p.text.endswith("\n```") for p in parts[1:])


def test_it_splits_a_long_section_at_paragraph_boundaries() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 150 for i in range(12)]
    parts = chunk("# Long\n\n" + "\n\n".join(paragraphs), "markdown", "doc")
    assert len(parts) > 1 and all(size(p.text) <= MAX_CHUNK for p in parts)
    assert all(p.text.rstrip().endswith("word") for p in parts)  # no paragraph cut
    assert parts[1].title == "Long (part 2)"


def test_it_batches_json_arrays_and_titles_them_by_identity_field() -> None:
    items = [{"slug": f"page-{i}", "body": "z" * 400} for i in range(20)]
    found = chunk(json.dumps({"site": {"pages": items}}), "json", "site.json")
    assert [c.title for c in found][:2] == [
        "site > pages > [0-8] page-0, page-1, page-2, page-3, page-4, page-5, page-6, page-7, "
        "page-8",
        "site > pages > [9-17] page-9, page-10, page-11, page-12, page-13, page-14, page-15, "
        "page-16, page-17",
    ]
    assert [item["slug"] for item in json.loads(found[0].text)][-1] == "page-8"
    assert all(size(c.text) <= MAX_CHUNK for c in found)


def test_it_titles_small_json_by_its_label_and_large_members_by_key_path() -> None:
    doc = {"name": "x", "config": {"a": "v" * 3000, "b": "w" * 3000}}
    assert titles(json.dumps(doc), "json", "cfg.json") == ["config", "config (2)", "cfg.json"]
    assert titles('{"a": 1}', "json", "small.json") == ["small.json"]


def test_it_windows_text_without_blank_lines_with_overlap() -> None:
    lines = [f"event {i}" for i in range(45)]
    found = chunk("\n".join(lines), "text", "app.log")
    assert [c.text.split("\n")[0] for c in found] == ["event 0", "event 15", "event 25"]
    assert found[0].title == "app.log: event 0"
    assert all(c.text.count("\n") == 19 for c in found)


def test_it_packs_blank_line_sections_of_text() -> None:
    doc = "First part.\nstill first.\n\nSecond part.\n\n" + ("Third " * 800)
    found = chunk(doc, "text", "notes")
    assert found[0].text == "First part.\nstill first.\n\nSecond part."
    assert found[0].title == "notes: First part."


def test_it_converts_html_to_markdown_before_chunking() -> None:
    page = (
        "<html><head><style>p{}</style><script>var x = 1;</script></head><body>"
        "<h1>Top</h1><p>Hello <b>world</b>, see <a href='/docs'>docs</a>.</p>"
        "<h2>Code</h2><pre>a = 1\n\nb = 2</pre><ul><li>one</li><li>two</li></ul></body></html>"
    )
    assert html_to_markdown(page) == (
        "# Top\n\nHello **world**, see [docs](/docs).\n\n## Code\n\n```\na = 1\n\nb = 2\n```"
        "\n\n- one\n- two\n"
    )
    assert titles(page, "html") == ["Top", "Top > Code"]


def test_it_detects_the_type_of_a_document() -> None:
    assert detect('[{"id": 1}]') == "json"
    assert detect("<!DOCTYPE html><html><body><p>x</p></body></html>") == "html"
    assert detect("Intro\n\n## Usage\n\nRun it.") == "markdown"
    assert detect('<p align="center"><img src="x"></p>\n\n# Tool\n\n<div>x</div>') == "markdown"
    assert detect("Some words <div>a</div> and <p>b</p>") == "html"
    assert detect("just a line\nand another {") == "text"
    assert detect("{not json") == "text"


def test_it_finds_distinctive_words_and_edit_distances() -> None:
    texts = ["alpha beta common", "alpha gamma common", "delta common", "common epsilon", "x y"]
    from collections import Counter

    found: Counter[str] = Counter()
    for t in texts:
        found.update(words(t))
    assert distinctive(found, len(texts)) == ["alpha"]  # 2 of 5; common is in 4 of 5
    assert edit_distance("pgvectr", "pgvector", 2) == 1
    assert edit_distance("kitten", "sitting", 2) == 3  # over the bound: bound + 1
    assert words("Use PAYMENTS_TIMEOUT 2026 ok") == {"use", "payments", "timeout"}
