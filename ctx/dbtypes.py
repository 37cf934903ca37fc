"""Reading a timestamp Python cannot hold never fails the whole answer.

PostgreSQL keeps timestamps from 4713 BC to 294276 AD; Python's datetime only years 1-9999.
Input validation refuses values outside that range (ctx.validation.timestamp), but a row
written before that check, by SQL or by another tool can still hold one, and psycopg raises
DataError on reading it: every list, search and query touching the row failed with a 500 and
only SQL repaired it. Django's timestamptz loader (one per connection, subclassing
psycopg_any.BaseTzLoader) is taught to read such a value as the nearest moment Python can
hold, logged, so the answer goes out and the row can be seen and fixed through the API.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import psycopg
from django.db.backends.postgresql import psycopg_any
from psycopg.types.datetime import TimestamptzLoader

log = logging.getLogger("ctx.db")

EARLIEST = datetime(1, 1, 2, tzinfo=UTC)  # a day inside the range: any time zone can show it
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def _nearest(data: Any) -> datetime:
    text = bytes(data)
    return EARLIEST if text.endswith(b"BC") or text.startswith(b"0000") else LATEST


def _load(self: Any, data: Any) -> datetime:
    try:
        value = TimestamptzLoader.load(self, data)
    except psycopg.DataError:
        value = _nearest(data)
        log.warning("timestamp %r is outside years 1-9999; read as %s", bytes(data), value)
    return value.replace(tzinfo=self.timezone)  # as Django's own loader does


def install() -> None:
    """Once per process, from CtxConfig.ready()."""
    psycopg_any.BaseTzLoader.load = _load
