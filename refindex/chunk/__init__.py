"""Cutting a document into titled chunks (pure: no Django, no database).

`chunk(content, kind, label)` returns the chunks of one document; `detect(content)` names the
kind of a document sent as `auto`. Every chunk's text is at most `MAX_CHUNK` bytes except a
fenced code block, which is kept whole up to `HARD_MAX`; titles are unique within a document.
"""

from __future__ import annotations

import json
import re

from refindex.chunk.base import HARD_MAX, MAX_CHUNK, Chunk, unique_titles
from refindex.chunk.html import html_to_markdown
from refindex.chunk.jsonchunks import chunk_json
from refindex.chunk.markdown import chunk_markdown
from refindex.chunk.text import chunk_text

__all__ = ["HARD_MAX", "KINDS", "MAX_CHUNK", "Chunk", "chunk", "detect", "html_to_markdown"]

KINDS = ("markdown", "json", "text", "html")
_HTML = re.compile(r"<(?:!doctype html|html|body|p|div|h[1-6]|ul|ol|table|article)\b", re.I)
_PAGE = re.compile(r"<(?:!doctype html|html|head|body)\b", re.I)
_MARKDOWN = re.compile(r"^(?: {0,3}#{1,6} \S| {0,3}(?:```|~~~)| {0,3}[-*] \S)", re.M)


def detect(content: str) -> str:
    """json when it parses as an object or array, html when it starts as a page (doctype,
    html, head, body), markdown when it has headings, fences or bullet lists, html when it
    holds two block tags, else text."""
    head = content.lstrip()[:1]
    if head in ("{", "["):
        try:
            json.loads(content)
            return "json"
        except ValueError:
            pass
    if _PAGE.match(content.lstrip()):
        return "html"
    if _MARKDOWN.search(content):  # a README may hold <p align="center"> and still be Markdown
        return "markdown"
    return "html" if len(_HTML.findall(content[:20000])) >= 2 else "text"


def chunk(content: str, kind: str, label: str) -> list[Chunk]:
    """The chunks of one document of `kind` (one of KINDS); `label` titles untitled parts.
    Raises ValueError for JSON that does not parse."""
    if kind == "json":
        found = chunk_json(json.loads(content), label)
    elif kind == "html":
        found = chunk_markdown(html_to_markdown(content), label)
    elif kind == "text":
        found = chunk_text(content, label)
    else:
        found = chunk_markdown(content, label)
    return unique_titles([c for c in found if c.text.strip()])
