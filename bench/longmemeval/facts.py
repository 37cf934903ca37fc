"""Extracted facts as extra keys of a question's corpus (`--facts`).

Each document's user turns (a session's, or one turn's at turn level) go through the
deterministic extractor (memory.extract, the one the server runs after an import); every fact
becomes one more document, keyed as the server keys it (memory.identity: one fact per key per
scope, the same fact from two documents is one fact citing both). A fact points back to its
documents: in a ranking a fact hit stands for its sessions (or turns), in haystack order, each
counted where it first appears.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from bench.longmemeval.data import Document, Granularity, Question
from memory.extract import RuleExtractor, Unit
from memory.identity import fact_key, fact_title

# Facts below this confidence stay out of the index. Chosen on the development split with
# bm25+facts (recall_all@5 / @10 / nDCG@10 / MRR): 0.5 (the server's default
# CTX_EXTRACTION_MIN_CONFIDENCE) 0.781 / 0.857 / 0.834 / 0.842, 0.75 0.800 / 0.881 / 0.850 /
# 0.835, 0.85 0.810 / 0.886 / 0.858 / 0.848, against 0.814 / 0.876 / 0.857 / 0.861 without facts:
# the self-disclosure notes (0.55-0.7) are short documents that outrank whole sessions.
MIN_CONFIDENCE = 0.85
PREFIX = "fact:"

Found = tuple[str, str, str]  # key, title, statement


@dataclass(frozen=True, slots=True)
class FactDoc:
    key: str
    title: str
    statement: str
    sources: tuple[str, ...]  # the documents (sessions or turns) stating it, in haystack order
    document: Document  # what BM25 reads: the statement, dated by its first source


_CACHE: dict[str, list[Found]] = {}
_EXTRACTOR = RuleExtractor()


def session_facts(session: Document, minimum: float = MIN_CONFIDENCE) -> list[Found]:
    """The facts of one document's user turns (cached: filler sessions recur across haystacks)."""
    turns = session.turns or (session.text,)
    cache_key = hashlib.sha256(f"{minimum}\x1e".encode() + "\x1e".join(turns).encode()).hexdigest()
    if cache_key not in _CACHE:
        units = [Unit("user", t, session.date, str(i)) for i, t in enumerate(turns)]
        found: dict[str, Found] = {}
        for e in _EXTRACTOR.extract(units).extractions:
            if e.confidence >= minimum:
                key = fact_key(e)
                # The key's head keeps apart two facts of one sentence (the server numbers them).
                found.setdefault(key, (key, f"{fact_title(e)} [{key[:8]}]", e.statement))
        _CACHE[cache_key] = list(found.values())
    return _CACHE[cache_key]


def question_facts(question: Question, granularity: Granularity = "session") -> list[FactDoc]:
    """Every fact of the question's haystack, one per key, in order of first appearance,
    citing the sessions (or, at turn level, the turns) that state it."""
    by_key: dict[str, tuple[Found, list[Document]]] = {}
    for source in question.documents(granularity):
        for found in session_facts(source):
            by_key.setdefault(found[0], (found, []))[1].append(source)
    out = []
    for (key, title, statement), sources in by_key.values():
        ids = tuple(dict.fromkeys(s.id for s in sources))
        doc = Document(
            PREFIX + key, sources[0].session_id, statement, sources[0].date, (statement,)
        )
        out.append(FactDoc(key, title, statement, ids, doc))
    return out


def expand(ranked: Sequence[str], facts: Sequence[FactDoc]) -> list[str]:
    """A ranking of documents and facts as documents: each fact stands for its sources; each
    document counts once, where it first appears (pure)."""
    sessions = {PREFIX + f.key: f.sources for f in facts}
    out: list[str] = []
    for doc_id in ranked:
        out.extend(sessions.get(doc_id, (doc_id,)))
    return list(dict.fromkeys(out))
