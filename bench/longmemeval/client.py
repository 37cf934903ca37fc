"""The ctx HTTP API as the benchmark uses it, plus the pure mapping between questions and blocks.

Only ``CtxClient`` talks to the network; ``build_blocks`` and ``ranked_ids`` are pure and tested
with literal data.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict, cast

import httpx

from bench.longmemeval.data import Granularity, Question

MAX_CONTENT_BYTES = 50_000  # the server's content limit ("50 KB"), read as 50,000 UTF-8 bytes
MAX_BATCH = 500  # blocks per POST /api/store/batch
MAX_QUERY_LIMIT = 50  # the largest "limit" POST /api/query accepts
DEFAULT_URL = "http://127.0.0.1:8000"


class BlockMetadata(TypedDict, total=False):
    session_id: str
    session_ids: list[str]  # an extracted fact: every session stating it (--facts)
    date: str
    turn_id: str
    turn_ids: list[str]  # an extracted fact at turn level: every turn stating it


class StoreBlock(TypedDict, total=False):
    category: str
    title: str
    content: str
    tags: list[str]
    metadata: BlockMetadata
    source_time: str
    type: str


class StoreResult(TypedDict):
    id: str
    action: str  # "created" | "updated" | "noop"


class Source(TypedDict, total=False):
    id: str
    title: str
    category: str
    score: float
    age_days: float
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BlockPlan:
    """The blocks of one question's scope; ``truncated``/``skipped_empty`` count documents."""

    blocks: list[StoreBlock]
    truncated: int
    skipped_empty: int


@dataclass(frozen=True, slots=True)
class QueryResult:
    sources: list[Source]
    client_ms: float
    server_ms: float | None


class CtxError(RuntimeError):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code


def iso_utc(value: datetime) -> str:
    """ISO-8601 with an explicit UTC offset (the dataset's naive dates are treated as UTC)."""
    return value.replace(tzinfo=UTC).isoformat()


def scope_name(prefix: str, question_id: str, granularity: Granularity) -> str:
    return f"{prefix}-{question_id}-{granularity}"


def truncate_utf8(text: str, max_bytes: int = MAX_CONTENT_BYTES) -> tuple[str, bool]:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes on a character boundary; and whether."""
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text, False
    return encoded[:max_bytes].decode("utf-8", errors="ignore"), True


def opaque_title(document_id: str, granularity: Granularity) -> str:
    return f"{granularity} {hashlib.sha256(document_id.encode()).hexdigest()[:12]}"


def build_blocks(question: Question, granularity: Granularity, category: str) -> BlockPlan:
    """One block per document: an opaque title, content = its user turns as paragraphs.

    The title is a hash of the document id, never the id itself: evidence session ids start
    with ``answer_``, and a title the search arms can read must not tell them which is which.

    A document id seen twice (a few S haystacks repeat a filler session) is stored once, since
    the server upserts on (scope, category, title); documents without text (sessions with no
    user turn, empty user turns) are left out, as the server would refuse empty content.
    """
    blocks: list[StoreBlock] = []
    seen: set[str] = set()
    truncated = skipped_empty = 0
    for document in question.documents(granularity):
        if document.id in seen:
            continue
        seen.add(document.id)
        if not document.text.strip():
            skipped_empty += 1
            continue
        content, was_cut = truncate_utf8(document.content)
        truncated += was_cut
        metadata: BlockMetadata = {
            "session_id": document.session_id,
            "date": iso_utc(document.date),
        }
        if granularity == "turn":
            metadata["turn_id"] = document.id
        blocks.append(
            {
                "category": category,
                "title": opaque_title(document.id, granularity),
                "content": content,
                "tags": ["longmemeval", granularity],
                "metadata": metadata,
                "source_time": iso_utc(document.date),
            }
        )
    return BlockPlan(blocks, truncated, skipped_empty)


def fact_blocks(question: Question, category: str, granularity: Granularity) -> list[StoreBlock]:
    """The question's extracted facts as blocks of type fact (--facts), each citing the
    sessions (or turns) that state it."""
    from bench.longmemeval.facts import question_facts  # the extractor loads only when asked

    return [
        {
            "category": f"{category}-facts",
            "title": fact.title,
            "content": fact.statement,
            "tags": ["longmemeval", "fact"],
            "type": "fact",
            "metadata": _cites(fact.sources, granularity) | {"date": iso_utc(fact.document.date)},
            "source_time": iso_utc(fact.document.date),
        }
        for fact in question_facts(question, granularity)
    ]


def _cites(sources: Sequence[str], granularity: Granularity) -> BlockMetadata:
    """The documents a fact stands for, as the ranking maps them back (ranked_ids)."""
    if granularity == "session":
        return {"session_id": sources[0], "session_ids": list(sources)}
    return {"turn_id": sources[0], "turn_ids": list(sources)}


def ranked_ids(sources: Sequence[Source], granularity: Granularity) -> list[str]:
    """Dataset document ids of the returned sources, best first, each once.

    Session blocks map through ``metadata.session_id``, turn blocks through ``metadata.turn_id``;
    both fall back to the title, which is the document id too.
    """
    key = "session_id" if granularity == "session" else "turn_id"
    ids: list[str] = []
    for source in sources:
        meta = source.get("metadata") or {}
        if meta.get(f"{key}s"):  # a fact: the sessions (turns) stating it
            ids.extend(str(s) for s in meta[f"{key}s"])
        else:
            ids.append(str(meta.get(key) or source["title"]))
    return list(dict.fromkeys(ids))


def chunked(blocks: Sequence[StoreBlock], size: int = MAX_BATCH) -> Iterator[list[StoreBlock]]:
    for start in range(0, len(blocks), size):
        yield list(blocks[start : start + size])


class CtxClient:
    """A thin, thread-safe wrapper over the endpoints the benchmark needs."""

    def __init__(
        self,
        base_url: str,
        key: str,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        stages: list[str] | None = None,
        fusion: str | None = None,
    ) -> None:
        self.stages = stages  # None: the server's configured stages
        self.fusion = fusion  # None: the server's configured CTX_FUSION
        self._http = httpx.Client(
            base_url=base_url,
            headers={"X-Context-Key": key},
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def create_scope(self, name: str) -> bool:
        """Create the scope; False when it already exists (409 conflict)."""
        try:
            self._post("/api/admin/scopes", {"name": name})
        except CtxError as error:
            if error.status == 409:
                return False
            raise
        return True

    def scope_stats(self, scope: str) -> dict[str, Any]:
        body = self._post("/api/manage", {"action": "stats", "scope": scope})
        return cast(dict[str, Any], body["stats"])

    def store_batch(self, scope: str, blocks: list[StoreBlock]) -> list[StoreResult]:
        body = self._post("/api/store/batch", {"scope": scope, "blocks": blocks})
        return cast(list[StoreResult], body["results"])

    def query(self, scope: str, query: str, limit: int, now: datetime) -> QueryResult:
        payload = {
            "query": query,
            "scope": scope,
            "limit": min(limit, MAX_QUERY_LIMIT),
            "now": iso_utc(now),
            "explain": False,
        }
        if self.stages is not None:
            payload["stages"] = self.stages
        if self.fusion is not None:
            payload["fusion"] = self.fusion
        started = time.perf_counter()
        body = self._post("/api/query", payload)
        client_ms = (time.perf_counter() - started) * 1000
        total = (body.get("timing_ms") or {}).get("total")
        server_ms = float(total) if isinstance(total, int | float) else None
        return QueryResult(cast(list[Source], body["sources"]), client_ms, server_ms)

    def _post(self, path: str, payload: object) -> dict[str, Any]:
        response = self._http.post(path, json=payload)
        body = _json_or_none(response)
        if response.status_code >= 400 or not isinstance(body, dict) or not body.get("success"):
            error = body.get("error") if isinstance(body, dict) else None
            error = error if isinstance(error, dict) else {}
            raise CtxError(
                response.status_code,
                str(error.get("code", "unexpected_response")),
                str(error.get("message", response.text[:300])),
            )
        return body


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
