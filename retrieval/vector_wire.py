"""Vectors sent to PostgreSQL in pgvector's binary form instead of as text.

Django's PostgreSQL cursors inline every parameter into the SQL as text: a batch of 124 short
blocks' windows is ~48,000 floats as nine-digit literals, formatted by Python (20 ms) and then
parsed by PostgreSQL. In binary the float32 values are copied, not converted: numpy builds the
array in 0.03 ms (docs/architecture.md, "Writes"). Only exact float32 values go this way, so
what is stored stays what the text path stored (nine digits restore a float32 exactly); others
keep the text form.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from django.db import connection
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types import TypeInfo

# The binary array header: one dimension, no nulls, the element type, its length, from 1.
_HEADER = struct.Struct(">iiIii")


class VectorArray:
    """Rows of float32 values as the parameter of a `%s::vector[]`."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows


@functools.cache
def _dumper(vector_oid: int) -> type[Dumper]:
    """VectorArray's binary dumper for a database whose vector type has this oid (one class
    per oid, not one per batch)."""

    class VectorArrayDumper(Dumper):
        # oid 0: PostgreSQL takes the parameter's type from the statement's `::vector[]` cast
        format = Format.BINARY

        def dump(self, obj: VectorArray) -> bytes:
            return encode(obj.rows, vector_oid)

    return VectorArrayDumper


def encode(rows: np.ndarray, vector_oid: int) -> bytes:
    """`rows` in vector[]'s binary receive form: the header, then per vector its size, the
    dimension, an unused int16 and the big-endian float4 values."""
    count, dim = rows.shape
    element = np.dtype(
        [("size", ">i4"), ("dim", ">i2"), ("unused", ">i2"), ("values", ">f4", (dim,))]
    )
    body = np.zeros(count, dtype=element)
    body["size"] = 4 + 4 * dim
    body["dim"] = dim
    body["values"] = rows
    return _HEADER.pack(1, 0, vector_oid, count, 1) + body.tobytes()


def _vector_oid(conn: psycopg.Connection[Any]) -> int:
    """The vector type's oid in this database (an array names its element type), looked up
    once per connection and kept in psycopg's registry of the connection's types."""
    info = conn.adapters.types.get("vector")
    if info is None:
        info = TypeInfo.fetch(conn, "vector")
        if info is None:
            raise psycopg.ProgrammingError("the vector extension is not installed")
        info.register(conn)
    return int(info.oid)


def exact_float32(vectors: np.ndarray) -> np.ndarray | None:
    """The vectors as float32 when that loses nothing (a local model's output), else None."""
    rows = vectors.astype(np.float32)
    return rows if np.array_equal(rows, vectors) else None


@contextmanager
def binding_cursor() -> Iterator[CursorWrapper]:
    """A cursor of the Django connection that sends parameters apart from the SQL (server-side
    binding), so that a VectorArray reaches PostgreSQL in binary. It goes through Django's
    execute wrappers like any cursor (the row-security context, query capture in tests)."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    # Before any statement: a lookup from inside execute (the dumper) would wait for the
    # connection's lock that execute holds.
    oid = _vector_oid(connection.connection)
    raw = psycopg.Cursor(connection.connection)
    raw.adapters.register_dumper(VectorArray, _dumper(oid))
    wrapper = CursorDebugWrapper if connection.queries_logged else CursorWrapper  # as cursor()
    cursor = wrapper(raw, connection)
    with cursor:
        yield cursor
