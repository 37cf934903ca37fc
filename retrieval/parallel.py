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
from concurrent.futures import ThreadPoolExecutor
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


def map_reads(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """fn over items, in order. With a pool and outside a transaction the items after the
    first run on helper threads (in the caller's context: its row-level security scopes)
    while this thread runs the first."""
    if len(items) < 2 or not _helpers_usable():
        return [fn(item) for item in items]
    futures = [
        _HELPERS.submit(_on_helper, contextvars.copy_context(), fn, item) for item in items[1:]
    ]
    first = fn(items[0])
    return [first, *(future.result() for future in futures)]


def _on_helper(context: contextvars.Context, fn: Callable[[T], R], item: T) -> R:
    try:
        return context.run(fn, item)
    finally:
        connections.close_all()  # the helper's connection goes back to the pool


def after(fn: Callable[[], None]) -> None:
    """fn on a helper thread, not waited for (a cache write the answer does not need), or
    here and now where helpers cannot be used. A failure is logged, never raised."""
    if not _helpers_usable():
        fn()
        return
    _HELPERS.submit(_on_helper, contextvars.copy_context(), _logged, fn)


def _logged(fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception:
        log.exception("background write failed")
