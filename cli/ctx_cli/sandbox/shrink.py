"""Output too large for a context window: indexed on the server and answered by snippets.

Over `THRESHOLD` bytes with an intent, the output is indexed (`POST /api/index`, label
`<prefix>:<sha256 prefix>`, so the same output is indexed once) and searched with the intent
as the query (`POST /api/index/search`, that source only). Only the marked lines of the best
snippets come back, with the source's distinctive terms to ask next (`search` on the label).
Without an intent, or when the server cannot be reached, the head and the tail with a marker.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from ctx_cli import CliError

THRESHOLD = 5 * 1024  # bytes: below this the output comes back whole
HEAD = TAIL = 2048  # bytes kept at each end without an intent
HITS = 3  # snippets returned for an intent
LINE_CHARS = 300  # a marked line is cut to this many characters around its first mark
TERMS = 10  # distinctive terms returned


class Poster(Protocol):
    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]: ...


def _cut(data: bytes, size: int, *, from_end: bool) -> bytes:
    """`size` bytes from one end of `data`, at a line break when one is near."""
    part = data[-size:] if from_end else data[:size]
    brk = part.find(b"\n") if from_end else part.rfind(b"\n")
    if brk != -1 and (brk < size // 2 if from_end else brk > size // 2):
        part = part[brk + 1 :] if from_end else part[: brk + 1]
    return part


def head_tail(text: str, head: int = HEAD, tail: int = TAIL) -> str:
    """The first and last lines of `text` with a marker saying how much was left out."""
    data = text.encode("utf-8")
    if len(data) <= head + tail:
        return text
    first, last = _cut(data, head, from_end=False), _cut(data, tail, from_end=True)
    middle = data[len(first) : len(data) - len(last)]
    lines = middle.count(b"\n")
    marker = (
        f"\n… [{len(middle):,} bytes, {lines:,} lines cut; "
        "give an intent to search the whole output] …\n"
    )
    return first.decode("utf-8", "ignore") + marker + last.decode("utf-8", "ignore")


def focus(snippet: str) -> str:
    """The lines of a snippet that hold a match («…»), each cut around its first mark."""
    lines = []
    for line in snippet.splitlines():
        at = line.find("«")
        if at == -1:
            continue
        start = max(0, at - LINE_CHARS // 3)
        piece = line[start : start + LINE_CHARS]
        more = "…" if start + LINE_CHARS < len(line) else ""
        lines.append(("…" if start else "") + piece + more)
    return "\n".join(lines) if lines else snippet[:LINE_CHARS]


def _shown(hits: list[dict[str, Any]]) -> str:
    """Each hit's marked lines under its title, leaving out lines an earlier hit showed: plain
    text is indexed in overlapping windows, so one matching line is often in two chunks."""
    seen: set[str] = set()
    parts = []
    for hit in hits:
        lines = [line for line in focus(hit["snippet"]).splitlines() if line not in seen]
        if lines:
            seen.update(lines)
            parts.append(f"[{hit['title']}]\n" + "\n".join(lines))
    return "\n".join(parts)


def label_for(text: str, prefix: str) -> str:
    return f"{prefix}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def shrink(
    text: str,
    intent: str | None,
    client: Poster | None,
    *,
    prefix: str = "exec",
    scope: str | None = None,
) -> dict[str, Any]:
    """`mode` (full | indexed | head_tail) and the `output` to return; for `indexed` also the
    `source` label, its `scope`, `chunks`, `rung` and `terms`."""
    if len(text.encode("utf-8")) <= THRESHOLD:
        return {"mode": "full", "output": text}
    if not intent or client is None:
        return {"mode": "head_tail", "output": head_tail(text)}
    label = label_for(text, prefix)
    try:
        return _indexed(text, intent, client, label, scope)
    except CliError as exc:
        return {"mode": "head_tail", "output": head_tail(text), "index_error": str(exc)}


def _indexed(
    text: str, intent: str, client: Poster, label: str, scope: str | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"content": text, "source": label}
    if scope:
        body["scope"] = scope
    source = client.post("/api/index", body)["source"]
    found = client.post(
        "/api/index/search",
        {"queries": [intent], "source": label, "scope": source["scope"], "limit": HITS},
    )
    result = (found.get("results") or [{}])[0]
    output = _shown(result.get("hits") or [])
    return {
        "mode": "indexed",
        "output": output or f"nothing in the output matched {intent!r}: search the terms below",
        "source": label,
        "scope": source["scope"],
        "chunks": source.get("chunks"),
        "rung": result.get("rung"),
        "corrections": result.get("corrections") or {},
        "terms": ((found.get("terms") or {}).get(label) or source.get("terms") or [])[:TERMS],
    }
