"""Every hook point of ctx, declared in one place with its contract (like a plugin hookspec).

The block code never imports the apps that react to a write (retrieval's embedding, dream's
guard): each app registers its implementations here in its `AppConfig.ready()`. Hooks run in
the order of their `order` number, then their qualified name, never in INSTALLED_APPS order, so
a new app cannot silently reorder the others. Registering the same function twice is a no-op
(ready() may run twice in tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from ctx.models import Block
    from ctx.principal import Principal

F = TypeVar("F", bound=Callable[..., Any])


class HookPoint(Generic[F]):
    """A named list of implementations with a contract every implementation keeps."""

    def __init__(self, name: str, contract: str) -> None:
        self.name = name
        self.contract = contract
        self._impls: dict[str, tuple[int, F]] = {}

    def register(self, fn: F, *, order: int = 50) -> F:
        self._impls[f"{fn.__module__}.{fn.__qualname__}"] = (order, fn)
        return fn

    def unregister(self, fn: F) -> None:
        self._impls.pop(f"{fn.__module__}.{fn.__qualname__}", None)

    def __iter__(self) -> Iterator[F]:
        ranked = sorted(self._impls.items(), key=lambda item: (item[1][0], item[0]))
        return iter([fn for _, (_, fn) in ranked])

    def __len__(self) -> int:
        return len(self._impls)


BLOCK_DERIVE: HookPoint[Callable[[Block], None]] = HookPoint(
    "block_derive",
    "Called on a block before it is saved; sets derived fields on it (content dates). "
    "Must not write other rows.",
)
BLOCK_SAVED: HookPoint[Callable[[list[Block]], None]] = HookPoint(
    "block_saved",
    "Called with the saved blocks inside the write's transaction, for rows that must commit "
    "together with them (temporal anchors, dream bookkeeping). An exception fails the write.",
)
BLOCKS_WRITTEN: HookPoint[Callable[[list[str]], None]] = HookPoint(
    "blocks_written",
    "Called with the written blocks' ids after their transaction committed (enqueue "
    "embedding, debounce digests). Fails open: an exception is logged, the write stands, "
    "and the periodic backfill catches up.",
)
BLOCKS_REMOVED: HookPoint[Callable[[Principal, list[str]], None]] = HookPoint(
    "blocks_removed",
    "Called with the ids of blocks about to be archived or purged, inside that transaction, "
    "before the rows change (what was derived from them goes too: extracted facts). An "
    "exception fails the removal.",
)
SESSIONS_WRITTEN: HookPoint[Callable[[list[int]], None]] = HookPoint(
    "sessions_written",
    "Called with the ids of conversation sessions whose messages changed, after the import's "
    "transaction committed (enqueue extraction). Fails open like BLOCKS_WRITTEN.",
)
SESSIONS_REMOVED: HookPoint[Callable[[Principal, list[int]], None]] = HookPoint(
    "sessions_removed",
    "Called with the ids of conversation sessions about to be deleted, inside that "
    "transaction, before their messages go. An exception fails the deletion.",
)
BLOCKS_EMBEDDED: HookPoint[Callable[[list[str]], None]] = HookPoint(
    "blocks_embedded",
    "Called with the ids of blocks whose vectors were just written, inside the embedding "
    "task's transaction (dream's guard check).",
)
STORE_HINTS: HookPoint[Callable[[Principal, Block], dict[str, Any]]] = HookPoint(
    "store_hints",
    "Extra fields of a store answer, computed after the write committed (near-duplicate "
    "hints). Must fail open itself: return {} rather than raise.",
)
SECRET_REFERENCES: HookPoint[Callable[[Any], Iterable[str]]] = HookPoint(
    "secret_references",
    "Given a sealed secret, the names of what refers to it (`setting:KEY`); a referenced "
    "secret may not be deleted (409).",
)

SECRET_OPENER: HookPoint[Callable[[int], str]] = HookPoint(
    "secret_opener",
    "Given the id of a sealed secret a setting names, its plaintext (the sealed-secrets app "
    "registers the one implementation; ctx.overrides never imports it).",
)

STATS_SECTIONS: HookPoint[Callable[[list[int]], dict[str, Any]]] = HookPoint(
    "stats_sections",
    "Given the readable scope ids of a `stats` call, extra sections of its answer, keyed by "
    "section (dream's queue). Must be cheap (stats feeds status lines) and fail open itself: "
    "return {} rather than raise.",
)


class Registry(Generic[F]):
    """Components by name (query stages): an app adds its own, nothing hard-codes them."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, F] = {}

    def register(self, name: str, item: F) -> F:
        self._items[name] = item
        return item

    def as_dict(self) -> dict[str, F]:
        return dict(self._items)


# Retrieval stages after fusion (retrieval/stages.py): `name -> Stage class`.
QUERY_STAGES: Registry[Any] = Registry("query stage")

# Files that live beside a model's rows (blob bytes in the blob storage), carried by tenant
# archives (ctx/ops/transfer.py): `label -> object` with `read(row) -> bytes` at export and
# `write(row, data)` after a restore committed.
ARCHIVE_FILES: Registry[Any] = Registry("archive file")
