"""One INSERT per batch for rows given as plain dicts (an import's messages).

`QuerySet.bulk_create` built a model instance per message and rendered a placeholder per value
into SQL text on the client: for a 1,000-message batch that was a sixth of the import job's
time (profiled). Here the rows travel as one JSON document that PostgreSQL expands with
`jsonb_to_recordset` (JSON arrays become array columns), through Django's cursor: row-level
security (the execute wrapper), query counting and error mapping apply as for any statement.
`ctx.bulk.insert_columns` cannot carry these rows: `unnest` flattens a column of arrays.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def insert_json_rows(
    model: type[Model], names: Sequence[str], rows: Sequence[dict[str, Any]]
) -> int:
    """INSERT `rows` (dicts keyed by the field names in `names`, values JSON-ready: ISO strings
    for times, lists for array fields) in one statement; returns the number of rows."""
    if not rows:
        return 0
    fields = [_field(model, name) for name in names]
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
