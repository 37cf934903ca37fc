"""Bulk inserts for the batch write path, with the values bound on the server.

`QuerySet.bulk_create` renders one INSERT with a placeholder for every value (about 12,500
for a 500-block batch, 20,000 for its anchor rows), and Django's psycopg cursors bind on the
client: psycopg splits that string and renders every value into it in Python. Profiled on a
500-block `POST /api/store/batch`, that and building the statement were a third of the web
worker's time. These helpers send the same rows with the values apart from the SQL, and
anchors as one array per column. Both run through Django's cursor wrapper, so the execute
wrappers (row-level security), query logging (`assertNumQueries`) and the error mapping
apply as usual.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.utils import CursorWrapper
from django.db.models import Field, Model


def _server_binding_cursor() -> CursorWrapper:
    """Django's cursor wrapper (execute wrappers, error mapping) around a psycopg cursor that
    sends the parameters apart from the statement. Django's own cursors bind on the client:
    psycopg renders every value into the SQL text in Python, which for a batch's rows cost
    more than the insert itself (measured), and `executemany` then has the server parse
    each row's statement again."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw: Any = psycopg.Cursor(connection.connection)  # the stubs expect Django's own cursor
    if connection.queries_logged:  # as Django's own cursors: tests and DEBUG count them
        return connection.make_debug_cursor(raw)
    return connection.make_cursor(raw)


@cache
def _insert_fields(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """Every column the database does not compute itself (generated columns are skipped)."""
    return tuple(f for f in model._meta.concrete_fields if not getattr(f, "generated", False))


# Rows per INSERT statement. One row each made the database run 500 statements a batch
# (its per-statement work doubled the insert's time); one statement for all rows made psycopg
# parse a query string with 12,500 placeholders in Python on every batch. Twenty rows keep
# the statement under psycopg's 4 KB cache limit for parsed queries and were fastest
# measured (10, 20, 25, 500 rows).
ROWS_PER_STATEMENT = 20


def insert_rows(objs: Sequence[Model]) -> None:
    """INSERT `objs` (all of one model): multi-row statements of ROWS_PER_STATEMENT rows,
    sent together in psycopg's pipeline mode (`executemany`).

    Like `bulk_create`: defaults and `auto_now` fields are filled in on the objects, which
    are marked saved; no signals are sent; an IntegrityError aborts the statement (the
    caller's savepoint rolls every row back).
    """
    if not objs:
        return
    db = connections[DEFAULT_DB_ALIAS]  # not the proxy: it is read once per value below
    model = type(objs[0])
    fields = _insert_fields(model)
    rows = [[f.get_db_prep_save(f.pre_save(obj, True), db) for f in fields] for obj in objs]
    size = ROWS_PER_STATEMENT
    groups = [
        [value for row in rows[start : start + size] for value in row]
        for start in range(0, len(rows), size)
    ]
    rest = groups.pop() if len(rows) % size else None
    with _server_binding_cursor() as cursor:
        if groups:
            cursor.executemany(_insert_sql(model, size), groups)
        if rest is not None:
            cursor.execute(_insert_sql(model, len(rows) % size), rest)
    for obj in objs:
        obj._state.adding = False
        obj._state.db = db.alias


@cache
def _insert_sql(model: type[Model], count: int) -> str:
    quote = connection.ops.quote_name
    fields = _insert_fields(model)
    columns = ", ".join(quote(str(f.column)) for f in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    values = ", ".join([row] * count)
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES {values}"  # noqa: S608 - names come from the model, values are parameters


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def insert_columns(model: type[Model], names: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
    """INSERT plain value tuples (no model instances) as one statement over `unnest` of one
    array per column; returns the number of rows. For narrow rows of scalars, such as
    temporal anchors: building thousands of model instances cost more than writing them."""
    if not rows:
        return 0
    columns = list(zip(*rows, strict=True))
    fields = [_concrete(model, name) for name in names]
    quote = connection.ops.quote_name
    targets = ", ".join(quote(str(f.column)) for f in fields)
    arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in fields)
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({targets}) SELECT * FROM unnest({arrays})"  # noqa: S608 - names come from the model, values are parameters
    with _server_binding_cursor() as cursor:
        cursor.execute(sql, [list(values) for values in columns])
    return len(rows)


def insert_json_rows(
    model: type[Model], names: Sequence[str], rows: Sequence[dict[str, Any]]
) -> int:
    """INSERT rows given as dicts keyed by the field names in `names` (values JSON-ready: ISO
    text for times, lists for array fields) as one statement, the rows one JSON document that
    PostgreSQL expands with `jsonb_to_recordset`; returns the number of rows. For rows with
    array columns, which `insert_columns`' `unnest` would flatten (an import's messages: their
    model instances and client-side rendering were a sixth of the import job, profiled)."""
    if not rows:
        return 0
    fields = [_concrete(model, name) for name in names]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(f.column)) for f in fields)
    record = ", ".join(f"{quote(str(f.column))} {f.db_type(connection)}" for f in fields)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) "  # noqa: S608 - names come from the model, values are a parameter
        f"SELECT {columns} FROM jsonb_to_recordset(%s::jsonb) AS r({record})"
    )
    payload = json.dumps(
        [{str(f.column): row[name] for f, name in zip(fields, names, strict=True)} for row in rows],
        ensure_ascii=False,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [payload])
    return len(rows)
