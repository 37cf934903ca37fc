"""Embedding blocks off the request path: by id after a write, and a backfill for the rest."""

from __future__ import annotations

import logging
import time
from typing import Any, NamedTuple

import numpy as np
from django.db import OperationalError, connection, models, transaction

from ctx import hooks
from ctx.models import Block, BlockType
from ctx.sensitivity import detect_block, highest, rank
from ctx.trust import allowed_levels, allows
from retrieval.chunking import windows
from retrieval.embeddings import embed_texts, get_embedder
from retrieval.vector_wire import VectorArray, binding_cursor, exact_float32

log = logging.getLogger("ctx.indexing")

BATCH = 128
# Windows embedded in one transaction. A batch of 128 long blocks (conversation windows) was
# over a thousand texts: minutes on a loaded worker, past Celery's 240 s soft limit, and the
# whole batch rolled back and was retried from scratch — nothing was ever embedded (measured,
# docs/benchmarks.md). Small transactions keep what was done when a later one is cut short.
MAX_TEXTS = 192


def _texts_of(block: Block) -> list[str]:
    """What is embedded for a block: its windows. A conversation window's title is an address
    (tool, session number, message range), no words about its content, and it would make the
    texts two overlapping windows share differ; so its sections are embedded without it."""
    if block.type == BlockType.TRANSCRIPT:
        return windows("", block.content, sections=True)
    return windows(block.title, block.content)


def _embed_rows(rows: list[tuple[Block, list[str]]]) -> int:
    """Embed every window of the blocks (each with its texts) in one batch, each distinct text
    once (overlapping conversation windows share half their texts); a block's own vector is the
    normalised mean of its windows (what dream and guard compare)."""
    provider = get_embedder()
    blocks = [block for block, _ in rows]
    texts: list[str] = []
    owners: list[int] = []  # the block (position in `blocks`) of each window
    for pos, (_, windows_of_block) in enumerate(rows):
        texts.extend(windows_of_block)
        owners.extend([pos] * len(windows_of_block))
    level = highest(*(b.sensitivity for b in blocks))
    distinct = list(dict.fromkeys(texts))
    row = {text: i for i, text in enumerate(distinct)}
    found = np.asarray(embed_texts(distinct, kind="passage", level=level), dtype=np.float64)
    vectors = found[[row[text] for text in texts]]
    means = _means(vectors, np.asarray(owners), len(blocks))
    ids = [str(b.pk) for b in blocks]
    idx = [0] * len(owners)
    for i in range(1, len(owners)):
        idx[i] = idx[i - 1] + 1 if owners[i] == owners[i - 1] else 0
    with binding_cursor() as cur:
        # Two set-based statements with the values as arrays instead of bulk_create and
        # bulk_update: bulk_update's CASE WHEN over the batch's ids cost 1.6 s per 1,000 short
        # blocks, more than all the other writes together (profiled, bench/embedding.py --e2e).
        cur.execute("DELETE FROM ctx_blockchunk WHERE block_id = ANY(%s::uuid[])", [ids])
        chunks: list[Any] = [[ids[o] for o in owners], idx, _wire(vectors)]
        cur.execute(_INSERT_CHUNKS, chunks)
        block_vectors: list[Any] = [provider.name, ids, _wire(means)]
        cur.execute(_UPDATE_BLOCKS, block_vectors)
    for block, mean in zip(blocks, means.tolist(), strict=True):
        block.embedding = mean
        block.embed_model = provider.name
    for hook in hooks.BLOCKS_EMBEDDED:
        hook(ids)
    return len(blocks)


_INSERT_CHUNKS = """INSERT INTO ctx_blockchunk (block_id, scope_id, idx, embedding)
    SELECT v.id, b.scope_id, v.idx, v.e FROM unnest(%s::uuid[], %s::int[], %s::vector[])
    AS v(id, idx, e) JOIN ctx_block b ON b.id = v.id"""
_UPDATE_BLOCKS = """UPDATE ctx_block b SET embedding = v.e, embed_model = %s
    FROM unnest(%s::uuid[], %s::vector[]) AS v(id, e) WHERE b.id = v.id"""


def _means(vectors: np.ndarray, owners: np.ndarray, count: int) -> np.ndarray:
    """Each block's normalised mean window vector (a single window is its own mean)."""
    sums = np.zeros((count, vectors.shape[1]))
    np.add.at(sums, owners, vectors)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    result: np.ndarray = sums / np.where(norms == 0, 1.0, norms)
    return result


def _wire(vectors: np.ndarray) -> VectorArray | list[str]:
    """Float32 values (a local model's windows) in binary, others (the float64 block means, a
    remote provider's floats) in the nine-digit text they were always stored from: binary
    would round them to float32 directly and store other last bits."""
    rows = exact_float32(vectors)
    return _literals(vectors) if rows is None else VectorArray(rows)


def _literals(vectors: np.ndarray) -> list[str]:
    """pgvector's text form, one string per row (nine digits restore a float32 exactly)."""
    return ["[" + ",".join(map(_DIGITS, row)) + "]" for row in vectors.tolist()]


_DIGITS = "{:.9g}".format


def embed_blocks(block_ids: list[str]) -> int:
    """Embed the given blocks that still lack a vector; returns how many were embedded.
    One transaction per MAX_TEXTS windows: a retry after a time limit resumes, not restarts."""
    done = 0
    for start in range(0, len(block_ids), BATCH):
        chunk = block_ids[start : start + BATCH]
        while (step := _embed_step(BATCH, chunk)).claimed:
            done += step.embedded
    return done


def pending() -> models.QuerySet[Block]:
    """Blocks waiting for a vector. Blocks above the embedder's trust are not pending: they
    stay lexical-only (stats count them apart) until the trust is raised, never retried."""
    return Block.objects.filter(
        embedding__isnull=True, archived=False, sensitivity__in=allowed_levels("embed")
    )


class Step(NamedTuple):
    claimed: int
    embedded: int


def embed_pending(*, limit: int = BATCH, ids: list[str] | None = None) -> int:
    """Claim up to `limit` unembedded blocks (skipping rows another worker holds) and embed
    them, MAX_TEXTS windows per transaction; returns how many were embedded.

    The claim and the write share one transaction: a crash rolls back that step only, and its
    rows are picked up again by the next backfill.
    """
    total = 0
    # On while anything was claimed: a step whose blocks the detector all raised above the
    # trust embeds none, yet settles them (they are no longer pending), so each step advances.
    while total < limit and (step := _embed_step(limit - total, ids)).claimed:
        total += step.embedded
    return total


def _embed_step(limit: int, ids: list[str] | None) -> Step:
    refresh_planner_stats()
    with transaction.atomic():
        qs = pending()
        if ids is not None:
            qs = qs.filter(pk__in=ids)
        fields = ("id", "type", "title", "content", "tags", "metadata", "sensitivity")
        blocks = list(qs.select_for_update(skip_locked=True).only(*fields)[: max(limit, 0)])
        if not blocks:
            return Step(0, 0)
        if ids is not None:
            # In the writer's order (a session's windows one after another), not the
            # database's: the windows that share texts then share a batch.
            order = {block_id: i for i, block_id in enumerate(ids)}
            blocks.sort(key=lambda b: order.get(str(b.pk), len(order)))
        # The budget first: the detector then reads only the blocks this step sends.
        sendable = [(b, texts) for b, texts in _within_budget(blocks) if _sendable(b)]
        return Step(len(blocks), _embed_rows(sendable) if sendable else 0)


# The guard's neighbour probe and the search arms are planned from per-scope row estimates. A
# bulk load outruns autovacuum (it wakes once a minute): with the statistics of a nearly empty
# table the probe read the whole scope row by row for each new block (7.8 ms a block at 3,000
# blocks, 40 % of the embedding time, bench/embedding.py --e2e) instead of asking the HNSW
# index (0.3 ms). So a table changed by more than a fifth since its last ANALYZE is analysed
# before the next batch, by one worker at a time (~30 ms at 3,000 blocks; the threshold grows
# with the table, so a growing table is analysed a logarithmic number of times).
# A fifth of the *embedded* blocks, not of all: blocks stored in bulk and embedded afterwards
# (an import, the benchmark) were analysed while none had a vector, and the next 500 + a fifth
# of all blocks' embeddings (~9 batches at 3,000) were probed against statistics that counted
# no embedded block: the exact plan over the growing scope, up to 0.5 s a batch, a third of the
# embedding time (bench/embedding.py --e2e). The partial index of embedded blocks carries the
# count the last ANALYZE saw (pg_stats hides the column's null fraction from the runtime role:
# the table has row security); the window table has only embedded rows.
_ANALYSED = {"ctx_block": "block_embedded", "ctx_blockchunk": "ctx_blockchunk"}
_STALE = """SELECT t.name FROM unnest(%s::text[], %s::text[]) AS t(name, counted)
    JOIN pg_stat_user_tables s ON s.relid = to_regclass(t.name)
    JOIN pg_class c ON c.oid = to_regclass(t.counted)
    WHERE s.n_mod_since_analyze > 100 + 0.2 * GREATEST(c.reltuples, 0) ORDER BY t.name"""
_ANALYSE_LOCK = 0x63747861  # advisory lock key ("ctxa"): one analyser at a time


def refresh_planner_stats() -> list[str]:
    """ANALYZE the block and window tables where they changed much since the last time;
    returns the tables analysed (none when another worker holds the lock)."""
    with connection.cursor() as cur:
        cur.execute(_STALE, [list(_ANALYSED), list(_ANALYSED.values())])
        stale = [r[0] for r in cur.fetchall()]
        if not stale:
            return []
        cur.execute("SELECT pg_try_advisory_lock(%s)", [_ANALYSE_LOCK])
        if not cur.fetchone()[0]:
            return []
        try:
            done = [table for table in stale if _analyse(table)]
        finally:
            cur.execute("SELECT pg_advisory_unlock(%s)", [_ANALYSE_LOCK])
    if done:
        log.info("planner statistics refreshed: %s", ", ".join(done))
    return done


def _analyse(table: str) -> bool:
    """ANALYZE one of _ANALYSED, giving up at once when a VACUUM or an index build holds the
    table (their lock conflicts with ANALYZE's): embedding must not wait behind maintenance
    for statistics, which are advice."""
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SET LOCAL lock_timeout = '200ms'")
            cur.execute(f"ANALYZE {table}")
    except OperationalError:
        log.warning("planner statistics of %s not refreshed: the table is busy", table)
        return False
    return True


def _within_budget(blocks: list[Block]) -> list[tuple[Block, list[str]]]:
    """The leading blocks, each with its texts, whose distinct texts fit MAX_TEXTS (always at
    least one): the rest stay pending, released when this transaction commits, for the next
    step."""
    taken: list[tuple[Block, list[str]]] = []
    seen: set[str] = set()
    for block in blocks:
        texts = _texts_of(block)
        seen.update(texts)
        if taken and len(seen) > MAX_TEXTS:
            break
        taken.append((block, texts))
    return taken


def _sendable(block: Block) -> bool:
    """Run the detector again (blocks written before it existed, or by a path that skipped
    it): a block it raises is saved at its new level and, above the trust, left out, so the
    pending filter skips it from now on."""
    found = detect_block(block.title, block.content, block.tags, block.metadata).level
    if rank(found) > rank(block.sensitivity):
        block.sensitivity = found
        block.save(update_fields=["sensitivity"])
    return allows("embed", block.sensitivity)


def backfill(*, max_seconds: float = 50.0) -> int:
    """Embed pending blocks in batches until none are left or the time budget is spent."""
    deadline = time.monotonic() + max_seconds
    total = 0
    while time.monotonic() < deadline:
        n = embed_pending()
        total += n
        if n == 0:
            break
    if total:
        log.info("backfill embedded %d blocks", total)
    return total
