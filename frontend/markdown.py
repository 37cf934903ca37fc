"""Block content as HTML: Markdown (markdown-it-py, CommonMark with tables and strikethrough)
with raw HTML off, so tags in the text are shown as text, then nh3 (the Ammonia sanitizer) with
an allow-list as a second wall: only formatting tags, links with http(s)/mailto only, every
link `rel="noopener noreferrer nofollow"`, no attribute that runs anything."""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])
TAGS = {
    "p", "br", "hr", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
SCHEMES = {"http", "https", "mailto"}


def render(text: str) -> SafeString:
    html = _MD.render(text)
    clean = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitized just above
