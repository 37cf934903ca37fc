"""Quality and speed of the deterministic extractor (memory.extract) on LongMemEval_S.

For the question types whose answer the user states in one session (`single-session-user`,
`single-session-preference`), run the extractor over each evidence session's turns (user and
assistant, as Units) and count the questions whose answer appears in one extracted fact or
preference. Run from the repository root:

    .venv/bin/python -m bench.extraction [--per-question out.json] [--sample 50]

Matching rules (fixed; the same for every run and every split):

* single-session-user: the answer and each extraction's statement and value are normalised
  (case folded, punctuation dropped, number words as digits, "a"/"an"/"the" dropped). A hit is
  an extraction whose statement or value contains the answer's token sequence, or contains
  every content word of the answer (the answer's tokens without stop words).
* single-session-preference: the answer describes the preferred response ("The user would
  prefer responses that suggest resources tailored to Adobe Premiere Pro ..."). Its first
  sentence is the positive part; its content words are its tokens without stop words and
  without the template's own words (user, prefer, responses, suggestions, ...), crudely
  stemmed (a final "s" dropped). A hit is one extraction whose statement contains at least
  max(2, ceil(n / 4)) of those n content words: one extraction must carry the specific
  subject (the product, the field, the habit), not the union of many.

Prints one JSON object (dev / held-out / all per type, extractions per session, a sample of
extractions from sessions that hold no evidence for a person to judge, throughput with the
machine and load) and a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import emit
from bench.longmemeval.data import RawEntry, load_entries, parse_date
from bench.longmemeval.split import load_split
from memory.extract import Extraction, RuleExtractor, Unit
from memory.extract.lexicon import NUMBER_WORDS, STOPWORDS, words

TYPES: Final = ("single-session-user", "single-session-preference")
# The order the judged sessions are drawn in. Each draw was judged once by hand: "v1" (33 of
# 50 correct) and "v2" (29 of 50, judged more strictly) were followed by rule fixes for the
# error classes they showed, so their figures describe older rules; "v3" is a fresh draw,
# judged after the last fix and not used for any change.
JUDGE_ORDER: Final = "v3"
SCORED_KINDS: Final = ("fact", "preference")
_TOKEN: Final = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_ARTICLES: Final = frozenset({"a", "an", "the"})
# Words of the preference answers' template, which say nothing about what the user prefers.
_TEMPLATE: Final = words(
    "user users would prefer prefers preferred preference preferences response responses "
    "suggestion suggestions suggest suggesting recommendation recommendations recommend "
    "recommending they their them might may also appreciate appreciated especially "
    "particularly such specific specifically like likely related relevant focus focused "
    "focusing include includes including utilize utilizing based provide providing tailored "
    "interest interested interests options option ideas idea tips advice resources resource "
    "answer answers help helpful general generic not"
)


# --- matching --------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """Case-folded word tokens, number words as digits, articles dropped."""
    out: list[str] = []
    for token in _TOKEN.findall(text.casefold().replace("\u2019", "'")):
        token = token.removesuffix("'s")
        if token not in _ARTICLES:
            out.append(NUMBER_WORDS.get(token, token))
    return out


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    size = len(needle)
    return size > 0 and any(
        list(haystack[i : i + size]) == list(needle) for i in range(len(haystack) - size + 1)
    )


def user_answer_hit(answer: str, extraction: Extraction) -> bool:
    """The single-session-user rule (module docstring)."""
    wanted = tokens(answer)
    content = {t for t in wanted if t not in STOPWORDS}
    for text in (extraction.statement, extraction.value):
        found = tokens(text)
        if _contains(found, wanted) or (content and content <= set(found)):
            return True
    return False


def _stem(token: str) -> str:
    return (
        token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token
    )


def preference_words(answer: str) -> set[str]:
    """The content stems of the answer's first (positive) sentence."""
    first = re.split(r"(?<=[.!?])\s+", answer.strip(), maxsplit=1)[0]
    template = {_stem(t) for t in _TEMPLATE}
    return {_stem(t) for t in tokens(first) if t not in STOPWORDS} - template


def preference_needed(words: set[str]) -> int:
    return max(2, math.ceil(len(words) / 4))


def preference_hit(answer: str, extraction: Extraction) -> bool:
    """The single-session-preference rule (module docstring)."""
    words = preference_words(answer)
    found = {_stem(t) for t in tokens(extraction.statement)}
    return len(words & found) >= preference_needed(words)


def is_hit(question_type: str, answer: str, extraction: Extraction) -> bool:
    if question_type == "single-session-preference":
        return preference_hit(answer, extraction)
    return user_answer_hit(answer, extraction)


# --- running ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    units: tuple[Unit, ...]


def session_units(entry: RawEntry, session_ids: Iterable[str]) -> list[Session]:
    wanted = set(session_ids)
    out: list[Session] = []
    for sid, raw_date, turns in zip(
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    ):
        if sid in wanted:
            when = parse_date(raw_date)
            units = tuple(
                Unit(
                    "user" if t["role"] == "user" else "assistant", t["content"], when, f"{sid}#{i}"
                )
                for i, t in enumerate(turns)
            )
            out.append(Session(sid, units))
    return out


@dataclass
class Outcome:
    question_id: str
    question_type: str
    hit: bool
    hit_any_kind: bool
    extractions: int
    matched: str


def score_question(entry: RawEntry, extractor: RuleExtractor) -> Outcome:
    sessions = session_units(entry, entry["answer_session_ids"])
    answer = str(entry["answer"])
    qtype = entry["question_type"]
    found = [e for session in sessions for e in extractor.extract(session.units).extractions]
    scored = [e for e in found if e.kind in SCORED_KINDS and is_hit(qtype, answer, e)]
    anykind = scored or [e for e in found if is_hit(qtype, answer, e)]
    return Outcome(
        entry["question_id"],
        qtype,
        hit=bool(scored),
        hit_any_kind=bool(anykind),
        extractions=len(found),
        matched=anykind[0].statement if anykind else "",
    )


def summarise(outcomes: Sequence[Outcome], ids: frozenset[str] | None) -> dict[str, Any]:
    chosen = [o for o in outcomes if ids is None or o.question_id in ids]
    table: dict[str, Any] = {}
    for qtype in (*TYPES, "both"):
        rows = [o for o in chosen if qtype == "both" or o.question_type == qtype]
        n = len(rows)
        table[qtype] = {
            "questions": n,
            "hits": sum(o.hit for o in rows),
            "share": round(sum(o.hit for o in rows) / n, 3) if n else None,
            "share_any_kind": round(sum(o.hit_any_kind for o in rows) / n, 3) if n else None,
        }
    return table


def _stable(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def judge_pool(entries: Sequence[RawEntry], split: dict[str, frozenset[str]]) -> list[Session]:
    """Sessions that hold no question's evidence, from the held-out questions' haystacks, minus
    every session a development question's haystack also holds (the rules were read against
    those), in the order of a hash of JUDGE_ORDER and their id."""
    seen_in_dev = {
        sid
        for e in entries
        if e["question_id"] in split["dev"]
        for sid in e["haystack_session_ids"]
    }
    owner: dict[str, RawEntry] = {}
    for entry in entries:
        if entry["question_id"] not in split["heldout"]:
            continue
        for sid in entry["haystack_session_ids"]:
            if (
                sid in seen_in_dev
                or sid in entry["answer_session_ids"]
                or sid.startswith("answer_")
            ):
                continue
            owner.setdefault(sid, entry)
    ordered = sorted(owner, key=lambda sid: _stable(f"{JUDGE_ORDER}:{sid}"))
    return [session_units(owner[sid], [sid])[0] for sid in ordered]


def judge_sample(
    pool: Sequence[Session], extractor: RuleExtractor, size: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One extraction (any kind but entity) from each of the first `size` sessions of the pool
    that yield any, chosen by a hash; and the extraction counts over those sessions."""
    sample: list[dict[str, Any]] = []
    counts: list[int] = []
    by_kind: dict[str, int] = {}
    for session in pool:
        if len(sample) >= size:
            break
        found = list(extractor.extract(session.units).extractions)
        counts.append(len(found))
        for e in found:
            by_kind[e.kind] = by_kind.get(e.kind, 0) + 1
        if found:
            sid = session.session_id
            pick = min(found, key=lambda e: _stable(f"{sid}:{e.evidence.start}:{e.rule}"))
            sample.append(_judge_row(sid, pick))
    stats = {
        "sessions": len(counts),
        "mean_extractions": round(sum(counts) / max(1, len(counts)), 2),
        "by_kind": dict(sorted(by_kind.items())),
    }
    return sample, stats


def _judge_row(sid: str, e: Extraction) -> dict[str, Any]:
    return {
        "session": sid,
        "kind": e.kind,
        "attribute": e.attribute,
        "statement": e.statement,
        "evidence": e.evidence.quote,
        "speaker": e.speaker,
        "confidence": e.confidence,
        "rule": e.rule,
    }


def throughput(sessions: Sequence[Session], extractor: RuleExtractor) -> dict[str, Any]:
    """Messages per second of extraction alone, one process: the data is parsed and the Units
    built before the clock starts. Wall time and the process's CPU time (the machine is
    shared; CPU time is what the extractor itself costs)."""
    units = [u for s in sessions for u in s.units]
    extractor.extract(sessions[0].units)  # compile every pattern before timing
    wall, cpu = time.perf_counter(), time.process_time()
    for session in sessions:
        extractor.extract(session.units)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "sessions": len(sessions),
        "messages": len(units),
        "user_messages": sum(u.role == "user" for u in units),
        "mean_chars_per_message": round(sum(len(u.text) for u in units) / max(1, len(units))),
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "messages_per_second_wall": round(len(units) / wall, 1),
        "messages_per_second_cpu": round(len(units) / cpu, 1),
        "workers": 1,
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=50, help="extractions to print for judging")
    parser.add_argument("--per-question", help="write each question's outcome to this JSON file")
    parser.add_argument("--out", help="also write the JSON result to this file")
    parser.add_argument(
        "--speed-sessions", type=int, default=300, help="other sessions to time (default 300)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    split = load_split()
    entries = [e for e in load_entries("s") if e["question_type"] in TYPES]
    entries = [e for e in entries if e["question_id"] in split["dev"] | split["heldout"]]
    extractor = RuleExtractor()
    load_before = os.getloadavg()
    outcomes = [score_question(entry, extractor) for entry in entries]
    pool = judge_pool(entries, split)
    sample, non_evidence = judge_sample(pool, extractor, args.sample)
    evidence = [s for e in entries for s in session_units(e, e["answer_session_ids"])]
    result: dict[str, Any] = {
        "benchmark": "extraction",
        "dataset": "longmemeval_s_cleaned_499of500",
        "kinds_scored": list(SCORED_KINDS),
        "dev": summarise(outcomes, split["dev"]),
        "heldout": summarise(outcomes, split["heldout"]),
        "all": summarise(outcomes, None),
        "extractions_per_question": _per_question_mean(outcomes),
        "non_evidence_sessions": non_evidence,
        "judge_sample": sample,
        "throughput_evidence_sessions": throughput(evidence, extractor),
        "throughput_other_sessions": throughput(pool[: args.speed_sessions], extractor),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    if args.per_question:
        Path(args.per_question).write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    emit(result, _summary(result), args.out)
    return 0


def _per_question_mean(outcomes: Sequence[Outcome]) -> float:
    """Extractions from a question's evidence sessions (one session for nearly all)."""
    return round(sum(o.extractions for o in outcomes) / max(1, len(outcomes)), 2)


def _summary(result: dict[str, Any]) -> str:
    parts = []
    for split in ("dev", "heldout", "all"):
        row = result[split]
        parts.append(
            f"{split} user {row['single-session-user']['share']} "
            f"pref {row['single-session-preference']['share']} both {row['both']['share']}"
        )
    speed = result["throughput_evidence_sessions"]["messages_per_second_cpu"]
    return "extraction answer-in-extraction: " + "; ".join(parts) + f"; {speed} messages/s (CPU)"


if __name__ == "__main__":
    raise SystemExit(main())
