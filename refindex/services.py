"""Writes of indexed sources: index (create or replace) and delete.

A document is chunked (refindex.chunk) and each chunk written as a `reference` block in the
caller's scope through ctx.services (write permission, sensitivity, versions, embedding after
commit), in the category `index/<label>`. Re-indexing a label replaces its chunks in one
transaction: chunks whose title and text are unchanged keep their block (and embedding), the
others are written, and blocks of chunks that are gone are purged.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction

from ctx import services
from ctx.errors import Conflict, ValidationFailed
from ctx.models import Block, BlockType
from ctx.principal import Principal
from ctx.sensitivity import INTERNAL, rank
from ctx.services import BlockInput, content_hash, writable_scope
from refindex import chunk as chunking
from refindex import vocabulary
from refindex.models import Chunk, Source, Term
from refindex.selectors import get_source_for, locked_in_scope

UPSERT_BATCH = 500  # block_upsert_many's batch: one locking read, one bulk insert


@dataclass(frozen=True)
class Indexed:
    source: Source
    action: str  # created | replaced | unchanged
    titles: list[str]
    written: int  # blocks created or changed
    removed: int  # blocks of chunks that are gone


# Every indexed chunk's category starts with this (memory formation skips such blocks).
CATEGORY_PREFIX = "index/"


def category(label: str) -> str:
    """`index/<label>`, within the 100 characters of a category (a long label keeps its
    start and a hash of the whole)."""
    name = f"{CATEGORY_PREFIX}{label}"
    if len(name) <= 100:
        return name
    digest = hashlib.sha256(label.encode()).hexdigest()[:10]
    return f"{name[:89]}~{digest}"


def _chunks(content: str, kind: str, label: str) -> list[chunking.Chunk]:
    try:
        found = chunking.chunk(content, kind, label)
    except ValueError:
        raise ValidationFailed(
            "'content' is not valid JSON.", details={"field": "content"}
        ) from None
    if not found:
        raise ValidationFailed("'content' holds no text to index.", details={"field": "content"})
    return found


def _source(scope_id: int, label: str) -> tuple[Source, bool]:
    """The label's source row, locked, created when new."""
    found = locked_in_scope(scope_id, label)
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            return Source.objects.create(scope_id=scope_id, label=label, kind="text"), True
    except IntegrityError:  # indexed concurrently: wait for that transaction, then replace
        found = locked_in_scope(scope_id, label)
        assert found is not None
        return found, False


def _refuse_foreign(source: Source, scope_id: int, linked: set[uuid.UUID]) -> None:
    """Blocks in the source's category that are not its chunks (stored by hand) would be
    overwritten or purged: refuse instead."""
    foreign = Block.objects.filter(scope_id=scope_id, category=category(source.label)).exclude(
        pk__in=linked
    )
    if foreign.exists():
        raise Conflict(
            f"The category '{category(source.label)}' holds blocks that are not this source's "
            "chunks; move them or index under another label."
        )


def _items(found: list[chunking.Chunk], label: str, kind: str) -> list[BlockInput]:
    return [
        BlockInput(
            category=category(label),
            title=c.title,
            content=c.text,
            type=BlockType.REFERENCE,
            metadata={"index_source": label, "index_type": kind},
            source=f"index:{label}"[:200],
        )
        for c in found
    ]


def _batches(items: list[BlockInput]) -> Iterable[list[BlockInput]]:
    for start in range(0, len(items), UPSERT_BATCH):
        yield items[start : start + UPSERT_BATCH]


@transaction.atomic
def source_index(
    *, principal: Principal, scope: str | None, label: str, kind: str, content: str
) -> Indexed:
    """Index (or re-index) a document under `label` in the scope (default: the key's home)."""
    scope_id = writable_scope(principal, scope)
    digest = content_hash(content)
    found = _chunks(content, kind, label)
    source, created = _source(scope_id, label)
    if not created and source.content_hash == digest and source.kind == kind:
        titles = list(source.chunks.order_by("position").values_list("block__title", flat=True))
        return Indexed(source, "unchanged", titles, 0, 0)
    linked = set(Chunk.objects.filter(source=source).values_list("block_id", flat=True))
    _refuse_foreign(source, scope_id, linked)
    Chunk.objects.filter(source=source).delete()
    written, blocks = 0, list[Block]()
    for batch in _batches(_items(found, label, kind)):
        results = services.block_upsert_many(principal=principal, scope=scope, items=batch)
        written += sum(r.action != "noop" for r in results)
        blocks.extend(r.block for r in results)
    removed = services.block_purge(
        principal=principal, block_ids=[str(b) for b in linked - {b.pk for b in blocks}]
    )
    Chunk.objects.bulk_create(
        Chunk(source=source, scope_id=scope_id, block=b, position=i) for i, b in enumerate(blocks)
    )
    # Words of a chunk above `internal` (personal data, credentials) stay out of the
    # vocabulary: distinctive terms and typo corrections are shown to every reader of the
    # scope, whatever their key's read ceiling (ctx/masking.py).
    _vocabulary(source, [b.content for b in blocks if rank(b.sensitivity) <= rank(INTERNAL)])
    source.kind, source.bytes, source.content_hash = kind, len(content.encode()), digest
    source.chunk_count = len(found)
    source.save()
    action = "created" if created else "replaced"
    return Indexed(source, action, [c.title for c in found], written, removed)


_TERMS_INSERT = """INSERT INTO refindex_term (source_id, scope_id, word, chunks)
SELECT %s, %s, w, n FROM unnest(%s::text[], %s::int[]) AS t(w, n)"""
# The scope's word list counts the sources holding each word; the words arrive sorted, so two
# sources indexed at once lock shared rows in the same order (no deadlock).
_WORDS_ADD = """INSERT INTO refindex_word (scope_id, word, sources)
SELECT %s, w, 1 FROM unnest(%s::text[]) AS w
ON CONFLICT (scope_id, word) DO UPDATE SET sources = refindex_word.sources + 1"""
_WORDS_DROP = """UPDATE refindex_word SET sources = sources - 1
WHERE scope_id = %s AND word = ANY(%s::text[])"""
_WORDS_GONE = """DELETE FROM refindex_word
WHERE scope_id = %s AND word = ANY(%s::text[]) AND sources <= 0"""


def _vocabulary(source: Source, texts: list[str]) -> None:
    """The source's words (one statement), the scope's word list and its distinctive terms."""
    found = vocabulary.counts(texts)
    before = set(Term.objects.filter(source=source).values_list("word", flat=True))
    Term.objects.filter(source=source).delete()
    if found:
        words = list(found)
        with connection.cursor() as cur:
            cur.execute(
                _TERMS_INSERT, [source.pk, source.scope_id, words, [found[w] for w in words]]
            )
    _scope_words(source.scope_id, added=set(found) - before, removed=before - set(found))
    source.terms = vocabulary.distinctive(found, len(texts))


def _scope_words(scope_id: int, *, added: set[str], removed: set[str]) -> None:
    """Count a source's new words into the scope's list and its dropped ones out of it (a word
    no source holds any more leaves the list)."""
    with connection.cursor() as cur:
        if added:
            cur.execute(_WORDS_ADD, [scope_id, sorted(added)])
        if removed:
            gone = sorted(removed)
            cur.execute(_WORDS_DROP, [scope_id, gone])
            cur.execute(_WORDS_GONE, [scope_id, gone])


@transaction.atomic
def source_delete(*, principal: Principal, label: str, scope: str | None) -> dict[str, object]:
    """Remove a source, its chunks' blocks (with their embeddings) and its vocabulary."""
    source = get_source_for(principal, label, scope, write=True)
    ids = [str(b) for b in Chunk.objects.filter(source=source).values_list("block_id", flat=True)]
    removed = services.block_purge(principal=principal, block_ids=ids)
    words = set(Term.objects.filter(source=source).values_list("word", flat=True))
    _scope_words(source.scope_id, added=set(), removed=words)
    gone = {"id": source.pk, "label": source.label, "scope": source.scope.name, "blocks": removed}
    source.delete()
    return gone
