"""The ingest parser on literal data: front matter, sections, tags, links, bounds."""

from __future__ import annotations

from pathlib import Path

from ctx_cli import ingest


def test_it_parses_front_matter_scalars_inline_lists_and_dash_lists() -> None:
    text = (
        "---\n"
        "title: 'My Note'\n"
        'tags: [alpha, "beta"]\n'
        "aliases:\n"
        "  - one\n"
        "  - two\n"
        "empty:\n"
        "# a comment\n"
        "time: 10:30\n"
        "---\n"
        "body\n"
    )
    front, body = ingest.split_front_matter(text)
    assert front == {
        "title": "My Note",
        "tags": ["alpha", "beta"],
        "aliases": ["one", "two"],
        "empty": None,
        "time": "10:30",
    }
    assert body == "body\n"


def test_it_leaves_text_without_closed_front_matter_alone() -> None:
    assert ingest.split_front_matter("---\ntitle: x\nno end\n") == ({}, "---\ntitle: x\nno end\n")
    assert ingest.split_front_matter("# Title\n") == ({}, "# Title\n")


def test_it_splits_at_level_two_and_deeper_headings_with_their_path() -> None:
    body = (
        "# Title\nintro\n"
        "## Setup\nsetup text\n"
        "### Linux\nlinux text\n"
        "## Empty\n"
        "## Use ##\nuse text\n"
    )
    got = [(s.headings, s.text) for s in ingest.split_sections(body)]
    assert got == [
        ((), "# Title\nintro"),
        (("Setup",), "## Setup\nsetup text"),
        (("Setup", "Linux"), "### Linux\nlinux text"),
        (("Use",), "## Use ##\nuse text"),
    ]


def test_it_ignores_headings_inside_code_fences() -> None:
    body = "## Script\n```bash\n## not a heading\n```\nafter\n"
    sections = ingest.split_sections(body)
    assert [s.headings for s in sections] == [("Script",)]
    assert "## not a heading" in sections[0].text


def test_it_finds_inline_tags_but_not_headings_anchors_or_code() -> None:
    text = ingest.prose(
        "#ops and #infra/db, (#x1)\n## Heading\nsee http://x.com/#anchor #123\n"
        "`#incode`\n```\n#fenced\n```\n"
    )
    assert ingest.inline_tags(text) == ["ops", "infra/db", "x1"]


def test_it_keeps_wiki_link_targets_without_aliases_or_headings() -> None:
    text = "See [[Docker]], [[Kubernetes|k8s]], [[Runbook#Restart]], [[Docker]] and [[#local]]."
    assert ingest.wiki_links(text) == ["Docker", "Kubernetes", "Runbook"]


def test_it_splits_large_text_at_paragraphs_within_the_byte_limit() -> None:
    text = "\n\n".join(f"paragraph {i} " + "ä" * 40 for i in range(10))
    parts = ingest.split_large(text, limit=200)
    assert len(parts) > 1 and all(len(p.encode()) <= 200 for p in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    assert ingest.split_large("one line " * 100, limit=64)[0].startswith("one line")
    assert all(len(p.encode()) <= 64 for p in ingest.split_large("x" * 1000, limit=64))


def test_it_builds_blocks_with_titles_tags_links_and_metadata() -> None:
    text = (
        "---\ntitle: Docker Guide\ntags: [Infra]\n---\n"
        "Intro about [[Compose]].\n"
        "## Install\nRun it. #setup\n"
        "## Install\nAgain.\n"
    )
    blocks = ingest.note_blocks(Path("ops/docker.md"), text, "ops")
    assert [b["title"] for b in blocks] == [
        "Docker Guide",
        "Docker Guide > Install",
        "Docker Guide > Install (2)",
    ]
    assert blocks[0]["metadata"] == {
        "path": "ops/docker.md",
        "headings": [],
        "front_matter": {"title": "Docker Guide", "tags": ["Infra"]},
        "links": ["Compose"],
    }
    assert blocks[1]["tags"] == ["infra", "setup"] and blocks[2]["tags"] == ["infra"]
    assert {b["category"] for b in blocks} == {"ops"}


def test_it_names_parts_of_oversized_sections() -> None:
    text = "## Big\n" + ("word " * 30 + "\n\n") * 3000
    blocks = ingest.note_blocks(Path("big.md"), text, "notes")
    assert len(blocks) > 1
    assert blocks[0]["title"] == "big > Big" and blocks[1]["title"] == "big > Big (part 2)"
    assert all(len(b["content"].encode()) <= ingest.MAX_SECTION_BYTES for b in blocks)
    assert blocks[1]["metadata"]["part"] == 2


def test_it_bounds_titles_tags_and_metadata() -> None:
    long = "t" * 600
    assert len(ingest.fit_title(long)) <= ingest.MAX_TITLE
    assert ingest.fit_title(long) != ingest.fit_title(long + "x")
    tags = ingest.normalize_tags([f"tag{i}" for i in range(80)], ["x" * 101])
    assert len(tags) == ingest.MAX_TAGS and all(len(t) <= ingest.MAX_TAG for t in tags)
    front = {"big": "y" * 20_000}
    blocks = ingest.note_blocks(Path("n.md"), "---\nbig: " + "y" * 20_000 + "\n---\ntext\n", "c")
    assert blocks[0]["metadata"]["front_matter"] != front


def test_it_takes_the_category_from_the_top_folder(tmp_path: Path) -> None:
    assert ingest.category_for(Path("Projects/sub/n.md"), None) == "Projects"
    assert ingest.category_for(Path("n.md"), None) == "notes"
    assert ingest.category_for(Path("Projects/n.md"), "fixed") == "fixed"
