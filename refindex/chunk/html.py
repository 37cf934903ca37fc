"""HTML to Markdown, enough to chunk a page by its headings (the standard library's parser).

No converter is installed with ctx (markdownify and html2text are not dependencies; html2text
is GPL), and chunking needs only the structure: headings become `#` lines, `pre` a fenced
block, list items `- ` lines, table rows `| a | b |`, links `[text](href)`, `hr` a rule.
Scripts, styles, templates and SVG are dropped; entities are decoded.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe"})
BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote",
     "ul", "ol", "table", "dl", "figure", "form", "details", "summary"}
)  # fmt: skip
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "source"})


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.href: list[str | None] = []
        self.cells: list[str] | None = None

    def _newlines(self, n: int = 2) -> None:
        tail = "".join(self.out[-3:])
        have = len(tail) - len(tail.rstrip("\n"))
        if self.out and have < n:
            self.out.append("\n" * (n - have))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIP:
            self.skip += tag not in VOID
            return
        if self.skip:
            return
        self._open(tag, dict(attrs))

    def _open(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag in HEADINGS:
            self._newlines()
            self.out.append("#" * HEADINGS[tag] + " ")
        elif tag == "pre":
            self._newlines()
            self.out.append("```\n")
            self.pre += 1
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag == "li":
            self._newlines(1)
            self.out.append("- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "hr":
            self._newlines()
            self.out.append("---")
            self._newlines()
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "a":
            self.href.append(attrs.get("href"))
            self.out.append("[")
        elif tag == "tr":
            self._newlines(1)
            self.cells = []
        elif tag in ("td", "th") and self.cells is not None:
            self.out.append("| ")
        elif tag in BLOCKS:
            self._newlines()

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag in HEADINGS or tag in BLOCKS or tag == "p":
            self._newlines()
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self._newlines(1)
            self.out.append("```")
            self._newlines()
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "a":
            href = self.href.pop() if self.href else None
            self.out.append(f"]({href})" if href and not href.startswith("javascript:") else "]")
        elif tag in ("td", "th"):
            self.out.append(" ")
        elif tag == "tr":
            self.out.append("|")
            self.cells = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_to_markdown(html: str) -> str:
    parser = _Converter()
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n[ \t]+(?=\S)", "\n", text) if "```" not in text else text
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
