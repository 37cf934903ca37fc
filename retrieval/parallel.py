"""A request's independent statements on pooled connections at once.

A comparison question runs its arms for the whole question and for each compared part: three
statements of 15-33 ms one after another at 92k blocks. PostgreSQL runs each on one core, so
on two pooled connections they overlap. Only with the web server's pool (`CTX_DB_POOL`): a
fresh connection per thread would cost more than it saves. Never inside a transaction: another
connection would not see its writes.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from django.conf import settings
from django.db import connection, connections

log = logging.getLogger("ctx.parallel")

T = TypeVar("T")
R = TypeVar("R")

# Two helper threads per process: with the request's own thread, three connections of the
# pool (the launcher sizes it for that) and never more than the cores can overlap.
_HELPERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ctx-parallel")


def pooled() -> bool:
    return bool(settings.DATABASES["default"].get("OPTIONS", {}).get("pool"))


def _helpers_usable() -> bool:
    return pooled() and not connection.in_atomic_block


class _NoConnection(Exception):
    """A helper found the pool without a connection to spare."""


def _pool_has_room() -> bool:
    """An idle pooled connection, or room to open one: a helper never waits for the pool.
    Requests hold their connections while they wait for their helpers; under load, helpers
    waiting for a connection and requests waiting for helpers used the pool up, and every
    request of the worker ended in PoolTimeout (measured: 50 clients, a third answered 500)."""
    stats = connection.pool.get_stats()  # type: ignore[attr-defined]  # not in django-stubs
    return bool(stats["pool_available"] > 0 or stats["pool_size"] < stats["pool_max"])


def map_reads(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """fn over items, in order. With a pool and outside a transaction the items after the
    first run on helper threads (in the caller's context: its row-level security scopes)
    while this thread runs the first; an item no helper could take runs here after it."""
    if len(items) < 2 or not _helpers_usable():
        return [fn(item) for item in items]
    futures = [
        _HELPERS.submit(_on_helper, contextvars.copy_context(), fn, item) for item in items[1:]
    ]
    first = fn(items[0])
    rest = [_collect(future, fn, item) for future, item in zip(futures, items[1:], strict=True)]
    return [first, *rest]


def _collect(future: Future[R], fn: Callable[[T], R], item: T) -> R:
    """The helper's result; or the item run on this thread when no helper has started it (the
    helpers are busy) or the pool had no connection for it."""
    if future.cancel():
        return fn(item)
    try:
        return future.result()
    except _NoConnection:
        return fn(item)


def _on_helper(context: contextvars.Context, fn: Callable[[T], R], item: T) -> R:
    if not _pool_has_room():
        raise _NoConnection
    try:
        return context.run(fn, item)
    finally:
        connections.close_all()  # the helper's connection goes back to the pool


def after(fn: Callable[[], None]) -> None:
    """fn on a helper thread, not waited for (a cache write the answer does not need), or
    here and now where helpers cannot be used. A failure is logged, never raised; with the
    pool used up it is skipped (the write is an optimisation)."""
    if not _helpers_usable():
        fn()
        return
    _HELPERS.submit(_logged, contextvars.copy_context(), fn)


def _logged(context: contextvars.Context, fn: Callable[[], None]) -> None:
    try:
        _on_helper(context, lambda _: fn(), None)
    except _NoConnection:
        log.debug("background write skipped: no pooled connection to spare")
    except Exception:
        log.exception("background write failed")


def release_connection() -> None:
    """Hand this thread's pooled connection back before work without the database (a store's
    near-duplicate hint runs the model on its text for tens of ms): the next statement takes
    one again, and the row-level security context is applied to it then (rls/context.py)."""
    if _helpers_usable():
        connection.close()
