"""LongMemEval loading and per-question corpora (the protocol of ../shared/eval/README.md §2.3).

Every question has its own haystack, so every question gets its own corpus, at two
granularities:

* session: one document per haystack session; its text is the space-joined text of the
  session's *user* turns, its id the session id.
* turn: one document per user turn; its id is ``f"{session_id}#{turn_index}"`` where
  ``turn_index`` is the turn's position in the session (0-based, assistant turns counted), so
  the id points back into the raw data and its session is everything before the last ``#``.

Dates are parsed to timezone-naive datetimes; the data has no time zone and we treat them as UTC.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal, TypedDict

Granularity = Literal["session", "turn"]
DatasetName = Literal["s", "oracle"]

GRANULARITIES: tuple[Granularity, ...] = ("session", "turn")
DATASET_FILES: dict[DatasetName, str] = {
    "s": "longmemeval_s_cleaned_499of500.json.gz",
    "oracle": "longmemeval_oracle.json",
}
TURN_SEPARATOR = "#"


class RawTurn(TypedDict, total=False):
    role: str
    content: str
    has_answer: bool


class RawEntry(TypedDict):
    question_id: str
    question_type: str
    question: str
    answer: str | int
    question_date: str
    haystack_dates: list[str]
    haystack_session_ids: list[str]
    haystack_sessions: list[list[RawTurn]]
    answer_session_ids: list[str]


@dataclass(frozen=True, slots=True)
class Document:
    """One retrievable key: a session or a user turn."""

    id: str
    session_id: str
    text: str
    date: datetime
    # The user turns apart: the server stores them as paragraphs (a message boundary is a
    # paragraph break in any log), while `text` joins them with spaces as the official code does.
    turns: tuple[str, ...] = ()

    @property
    def content(self) -> str:
        return "\n\n".join(t for t in self.turns if t.strip()) if self.turns else self.text


@dataclass(frozen=True, slots=True)
class Question:
    question_id: str
    question_type: str
    question: str
    question_date: datetime
    sessions: tuple[Document, ...]
    turns: tuple[Document, ...]
    gold_sessions: frozenset[str]
    gold_turns: frozenset[str]

    def documents(self, granularity: Granularity) -> tuple[Document, ...]:
        return self.sessions if granularity == "session" else self.turns

    def gold(self, granularity: Granularity) -> frozenset[str]:
        return self.gold_sessions if granularity == "session" else self.gold_turns


def default_data_dir() -> Path:
    """``$CTX_EVAL_DATA`` if set, else ``../shared/eval/data`` beside the repository."""
    override = os.environ.get("CTX_EVAL_DATA")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "eval" / "data"


def load_entries(dataset: DatasetName, data_dir: Path | None = None) -> list[RawEntry]:
    path = (data_dir or default_data_dir()) / DATASET_FILES[dataset]
    if not path.is_file():
        raise FileNotFoundError(f"LongMemEval file not found: {path} (set CTX_EVAL_DATA)")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        entries: list[RawEntry] = json.load(handle)
    return entries


def parse_date(value: str) -> datetime:
    """Parse ``"2023/04/10 (Mon) 23:07"`` to a naive datetime (treated as UTC)."""
    day, _weekday, clock = value.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M")


def turn_id(session_id: str, turn_index: int) -> str:
    return f"{session_id}{TURN_SEPARATOR}{turn_index}"


def session_of_turn(document_id: str) -> str:
    """The session id of a turn id (everything before the last ``#``)."""
    return document_id.rsplit(TURN_SEPARATOR, 1)[0]


def is_scorable(entry: RawEntry) -> bool:
    """False for abstention questions and for those without a user-side evidence turn."""
    if entry["question_id"].endswith("_abs"):
        return False
    return any(_user_evidence_turns(session) for session in entry["haystack_sessions"])


def build_question(entry: RawEntry) -> Question:
    sessions: list[Document] = []
    turns: list[Document] = []
    gold_sessions: set[str] = set()
    gold_turns: set[str] = set()
    answer_ids = set(entry["answer_session_ids"])
    haystack = zip(
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    )
    for session_id, raw_date, session in haystack:
        date = parse_date(raw_date)
        user_turns = [(i, turn) for i, turn in enumerate(session) if turn["role"] == "user"]
        text = " ".join(turn["content"] for _, turn in user_turns)
        parts = tuple(turn["content"] for _, turn in user_turns)
        sessions.append(Document(session_id, session_id, text, date, parts))
        for index, turn in user_turns:
            tid = turn_id(session_id, index)
            turns.append(Document(tid, session_id, turn["content"], date, (turn["content"],)))
            if turn.get("has_answer") is True:
                gold_turns.add(tid)
        if session_id in answer_ids and _user_evidence_turns(session):
            gold_sessions.add(session_id)
    return Question(
        question_id=entry["question_id"],
        question_type=entry["question_type"],
        question=entry["question"],
        question_date=parse_date(entry["question_date"]),
        sessions=tuple(sessions),
        turns=tuple(turns),
        gold_sessions=frozenset(gold_sessions),
        gold_turns=frozenset(gold_turns),
    )


def build_questions(entries: Iterable[RawEntry]) -> list[Question]:
    """The scorable questions, in file order."""
    return [build_question(entry) for entry in entries if is_scorable(entry)]


def load_questions(dataset: DatasetName, data_dir: Path | None = None) -> list[Question]:
    return build_questions(load_entries(dataset, data_dir))


def filter_types(questions: Sequence[Question], types: Iterable[str] | None) -> list[Question]:
    if not types:
        return list(questions)
    wanted = set(types)
    unknown = wanted - {q.question_type for q in questions}
    if unknown:
        raise ValueError(f"unknown question types: {', '.join(sorted(unknown))}")
    return [q for q in questions if q.question_type in wanted]


def stratified_subset(questions: Sequence[Question], n: int) -> list[Question]:
    """A deterministic subset of ``n`` questions with the type proportions of the whole.

    Each type gets its share by largest remainder (at least one while ``n`` allows); inside a
    type, questions are taken in the order of a hash of their id, so the subset is stable and
    does not depend on file order. The result keeps the input order.
    """
    if n >= len(questions):
        return list(questions)
    by_type: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        by_type[question.question_type].append(question)
    quotas = _largest_remainder({t: len(qs) for t, qs in by_type.items()}, n)
    chosen: set[str] = set()
    for question_type, quota in quotas.items():
        ranked = sorted(by_type[question_type], key=lambda q: _stable_hash(q.question_id))
        chosen.update(q.question_id for q in ranked[:quota])
    return [q for q in questions if q.question_id in chosen]


def _largest_remainder(sizes: dict[str, int], n: int) -> dict[str, int]:
    total = sum(sizes.values())
    exact = {key: size * n / total for key, size in sizes.items()}
    quotas = {key: int(value) for key, value in exact.items()}
    by_remainder = sorted(sizes, key=lambda key: (-(exact[key] - quotas[key]), key))
    for key in by_remainder[: n - sum(quotas.values())]:
        quotas[key] += 1
    # Give every type one question when there is room, taken from the largest quotas.
    for key in sorted(sizes):
        if quotas[key] == 0 and n >= len(sizes):
            donor = max(quotas, key=lambda k: (quotas[k], k))
            quotas[donor] -= 1
            quotas[key] = 1
    return quotas


def _stable_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def _user_evidence_turns(session: Sequence[RawTurn]) -> list[RawTurn]:
    return [t for t in session if t["role"] == "user" and t.get("has_answer") is True]
