"""Extracted facts as extra keys of a question's corpus (`--facts`).

Each session's user turns go through the deterministic extractor (memory.extract, the one the
server runs after an import); every fact becomes one more document, keyed as the server keys
it (memory.identity: one fact per key per scope, the same fact from two sessions is one
document citing both). A fact points back to its sessions: in a ranking a fact hit stands for
its sessions, in haystack order, and k is extended until k distinct sessions were seen (the
LongMemEval convention for keys smaller than the labelled unit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from bench.longmemeval.data import Document, Question
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
    sessions: tuple[str, ...]  # the sessions stating it, in haystack order
    document: Document  # what BM25 reads: the statement, dated by its first session


_CACHE: dict[str, list[Found]] = {}
_EXTRACTOR = RuleExtractor()


def session_facts(session: Document, minimum: float = MIN_CONFIDENCE) -> list[Found]:
    """The facts of one session's user turns (cached: filler sessions recur across haystacks)."""
    turns = session.turns or (session.text,)
    cache_key = hashlib.sha256(f"{minimum}\x1e".encode() + "\x1e".join(turns).encode()).hexdigest()
    if cache_key not in _CACHE:
        units = [Unit("user", t, session.date, str(i)) for i, t in enumerate(turns)]
        found: dict[str, Found] = {}
        for e in _EXTRACTOR.extract(units).extractions:
            if e.confidence >= minimum:
                key = fact_key(e)
                found.setdefault(key, (key, fact_title(e, key), e.statement))
        _CACHE[cache_key] = list(found.values())
    return _CACHE[cache_key]


def question_facts(question: Question) -> list[FactDoc]:
    """Every fact of the question's haystack, one per key, in order of first appearance."""
    by_key: dict[str, tuple[Found, list[Document]]] = {}
    for session in question.sessions:
        for found in session_facts(session):
            by_key.setdefault(found[0], (found, []))[1].append(session)
    out = []
    for (key, title, statement), sessions in by_key.values():
        ids = tuple(dict.fromkeys(s.id for s in sessions))
        doc = Document(PREFIX + key, ids[0], statement, sessions[0].date, (statement,))
        out.append(FactDoc(key, title, statement, ids, doc))
    return out


def expand(ranked: Sequence[str], facts: Sequence[FactDoc]) -> list[str]:
    """A ranking of sessions and facts as sessions: each fact stands for its sessions; each
    session counts once, where it first appears (pure)."""
    sessions = {PREFIX + f.key: f.sessions for f in facts}
    out: list[str] = []
    for doc_id in ranked:
        out.extend(sessions.get(doc_id, (doc_id,)))
    return list(dict.fromkeys(out))
