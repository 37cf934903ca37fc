"""Snippet search over indexed sources: for each query the best chunks, each shown as a window
of about 1,500 characters around its hits with the matched words marked «like this».

A fallback ladder, each rung tried only when the ones before found nothing:

1. `stemmed_and`: every word, stemmed (PostgreSQL `plainto_tsquery('english', …)`).
2. `stemmed_or`: any of the words.
3. `trigram`: words of the sources' vocabulary that contain a query word (a partial word:
   `useEff` finds `useEffect`), through the pg_trgm index of the scope's word list.
4. `typo`: each query word replaced by the nearest vocabulary word within an edit distance of
   1 (words up to 5 letters) or 2, among the words sharing trigrams with it (pg_trgm `%`).

Every hit names the rung that found it. Matching and ranking (`ts_rank`) read the chunks'
blocks' generated English full-text column and its GIN index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from refindex import vocabulary

RUNGS = ("stemmed_and", "stemmed_or", "trigram", "typo")
WINDOW = 1500  # characters of a snippet
OPEN, CLOSE = "«", "»"
TOKEN = re.compile(r"[^\W_]+")
EXPANSIONS = 20  # vocabulary words one partial query word may stand for

# Ranking reads every matching chunk's tsvector: a word found in all 100,000 chunks of a
# corpus took 1.9 s (profiled), most of it reading and joining rows that could never make the
# top five. So the matches are found by the GIN index alone (a chunk block is known by its
# scope and its source's category, no join), CANDIDATES at a time, ranked among themselves,
# and only the best few are joined to their source and marked: a query whose words are in
# more chunks than that is not distinctive, and any of them serves. The category test is kept
# away from the (scope, category) index (`|| ''`): the planner, estimating 12k of 101k chunks
# for 78 categories, intersected the full-text bitmap with all 101k index entries of the scope
# (40 ms); from the full-text index alone the same query takes 12 to 18 ms.
CANDIDATES = 1000

_HITS = """
WITH m AS (
  SELECT b.id, b.title, ts_rank(b.tsv_en, q) AS rank, q
  FROM ctx_block b, {query} AS q
  WHERE b.tsv_en @@ q AND NOT b.archived
    AND b.scope_id = ANY(%(scopes)s) AND (b.category || '') = ANY(%(categories)s)
  LIMIT %(candidates)s
), top AS (SELECT * FROM m ORDER BY rank DESC, id LIMIT %(limit)s)
SELECT top.id, s.label, sc.name, top.title, top.rank, b.sensitivity,
       ts_headline('english', b.content, top.q,
                   'HighlightAll=true, StartSel=«, StopSel=»') AS marked
FROM top
JOIN ctx_block b ON b.id = top.id
JOIN refindex_chunk c ON c.block_id = top.id
JOIN refindex_source s ON s.id = c.source_id
JOIN ctx_scope sc ON sc.id = s.scope_id
WHERE c.source_id = ANY(%(sources)s)
ORDER BY top.rank DESC, c.position
"""
_AND = "plainto_tsquery('english', %(text)s)"
_OR = "to_tsquery('english', %(text)s)"


@dataclass
class Hit:
    block_id: str
    source: str
    scope: str
    title: str
    score: float
    snippet: str
    rung: str
    level: str  # the block's sensitivity: above the reader's ceiling the snippet is masked


@dataclass(frozen=True)
class Corpus:
    """The sources searched: their ids, and what finds their chunk blocks without a join
    (their scopes and categories, `index/<label>`: refindex.services.category)."""

    sources: list[int]
    scopes: list[int]
    categories: list[str]


@dataclass
class Found:
    query: str
    rung: str | None = None
    hits: list[Hit] = field(default_factory=list)
    corrections: dict[str, str] = field(default_factory=dict)


def tokens(query: str) -> list[str]:
    return list(dict.fromkeys(t.lower() for t in TOKEN.findall(query)))


def _run(sql_query: str, text: str, corpus: Corpus, limit: int, rung: str) -> list[Hit]:
    if not text.strip():
        return []
    params: dict[str, Any] = {
        "text": text,
        "sources": corpus.sources,
        "scopes": corpus.scopes,
        "categories": corpus.categories,
        "limit": limit,
        "candidates": CANDIDATES,
    }
    with connection.cursor() as cur:
        cur.execute(_HITS.format(query=sql_query), params)
        rows = cur.fetchall()
    return [
        Hit(str(bid), label, scope, title, round(float(rank), 4), window(marked), rung, level)
        for bid, label, scope, title, rank, level, marked in rows
    ]


def _any(words: list[str]) -> str:
    return " | ".join(words)


# The partial-word and typo rungs look a word up in the scope's word list (one row per word,
# refindex_word, trigram-indexed) and keep the words the searched sources hold (refindex_term,
# by its (source, word) key), the most widespread first.
_CONTAINING = """SELECT t.word FROM refindex_term t
WHERE t.source_id = ANY(%(sources)s) AND t.word IN (
  SELECT w.word FROM refindex_word w
  WHERE w.scope_id = ANY(%(scopes)s) AND w.word LIKE %(pattern)s AND w.word <> %(word)s)
GROUP BY t.word ORDER BY max(t.chunks) DESC, t.word LIMIT %(limit)s"""

_SIMILAR = """SELECT t.word, max(t.chunks) FROM refindex_term t
WHERE t.source_id = ANY(%(sources)s) AND t.word IN (
  SELECT w.word FROM refindex_word w
  WHERE w.scope_id = ANY(%(scopes)s) AND w.word %% %(word)s
  ORDER BY similarity(w.word, %(word)s) DESC LIMIT 200)
GROUP BY t.word ORDER BY similarity(t.word, %(word)s) DESC LIMIT 50"""


def _rows(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def _containing(words: list[str], corpus: Corpus) -> list[str]:
    """Vocabulary words that contain a query word of 3 letters or more (not the word itself).
    Query words are letters and digits only (TOKEN), so they hold no LIKE wildcard."""
    found: list[str] = []
    for word in words:
        if len(word) < 3:
            continue
        params = {
            "sources": corpus.sources,
            "scopes": corpus.scopes,
            "pattern": f"%{word}%",
            "word": word,
            "limit": EXPANSIONS * 4,
        }
        found.extend(row[0] for row in _rows(_CONTAINING, params))
    return list(dict.fromkeys(found))[: EXPANSIONS * max(1, len(words))]


def nearest(word: str, corpus: Corpus) -> str | None:
    """The vocabulary word nearest to `word` by edit distance (1 for words up to 5 letters,
    else 2), the more widespread on a tie; None when there is none or the word is known."""
    bound = 1 if len(word) <= 5 else 2
    params = {"sources": corpus.sources, "scopes": corpus.scopes, "word": word}
    best: tuple[int, int, str] | None = None
    for candidate, chunks in _rows(_SIMILAR, params):
        if candidate == word:
            return None
        distance = vocabulary.edit_distance(word, candidate, bound)
        if distance <= bound and (best is None or (distance, -chunks) < best[:2]):
            best = (distance, -chunks, candidate)
    return best[2] if best else None


def _typo(words: list[str], corpus: Corpus) -> dict[str, str]:
    fixes: dict[str, str] = {}
    for word in words:
        if len(word) >= 3 and not word.isdigit():
            fixed = nearest(word, corpus)
            if fixed is not None:
                fixes[word] = fixed
    return fixes


def search_one(query: str, corpus: Corpus, limit: int) -> Found:
    """One query down the ladder until a rung finds something."""
    found = Found(query)
    words = tokens(query)
    if not words or not corpus.sources:
        return found
    found.hits = _run(_AND, query, corpus, limit, "stemmed_and")
    if not found.hits and len(words) > 1:
        found.hits = _run(_OR, _any(words), corpus, limit, "stemmed_or")
    if not found.hits:
        expanded = _containing(words, corpus)
        found.hits = _run(_OR, _any(expanded), corpus, limit, "trigram") if expanded else []
    if not found.hits:
        found.corrections = _typo(words, corpus)
        fixed = [found.corrections.get(w, w) for w in words]
        if found.corrections:
            found.hits = _run(_AND, " ".join(fixed), corpus, limit, "typo") or _run(
                _OR, _any(fixed), corpus, limit, "typo"
            )
    found.rung = found.hits[0].rung if found.hits else None
    return found


def window(marked: str, width: int = WINDOW) -> str:
    """The part of a chunk (with its matches marked) of about `width` characters that holds
    the most marks, cut at line or word boundaries, with … where text was left out."""
    if len(marked) <= width:
        return marked.strip("\n")
    marks = [m.start() for m in re.finditer(OPEN, marked)]
    start = _best_start(marks, width, len(marked))
    end = min(len(marked), start + width)
    start, end = _snap(marked, start, end)
    text = marked[start:end]
    if text.count(OPEN) > text.count(CLOSE):  # a mark cut at the end: close it
        text += CLOSE
    head = "…" if start > 0 else ""
    tail = "…" if end < len(marked) else ""
    return f"{head}{text.strip()}{tail}"


def _best_start(marks: list[int], width: int, length: int) -> int:
    """Where a window of `width` holding the most marks starts (the first mark a fifth in)."""
    if not marks:
        return 0
    best, best_count = 0, -1
    lead = width // 5
    for i, first in enumerate(marks):
        start = max(0, min(first - lead, length - width))
        count = sum(1 for m in marks[i:] if m < start + width)
        if count > best_count:
            best, best_count = start, count
    return best


def _snap(text: str, start: int, end: int) -> tuple[int, int]:
    """Move the window's edges to a line end (or a space) within 150 characters, never into
    a mark."""
    if start > 0:
        cut = text.rfind("\n", start - 150, start + 150)
        cut = cut if cut >= 0 else text.find(" ", start)
        start = cut + 1 if 0 <= cut < end else start
    if end < len(text):
        cut = text.rfind("\n", end - 150, end)
        cut = cut if cut > start else text.rfind(" ", start, end)
        end = cut if cut > start else end
    opened = text.rfind(OPEN, start, end)
    if opened > text.rfind(CLOSE, start, end):  # the window would end inside a mark
        closing = text.find(CLOSE, opened)
        end = closing + 1 if closing >= 0 else end
    return start, end
