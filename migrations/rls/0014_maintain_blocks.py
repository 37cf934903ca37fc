"""The runtime role may ANALYZE the block and window tables (PostgreSQL 17's MAINTAIN right).

The embedding worker refreshes the planner's statistics after a bulk load
(retrieval/indexing.py `refresh_planner_stats`): only the owner or a role holding MAINTAIN may.
On an older server the grant is skipped with a warning; the worker's ANALYZE is then refused
with a warning of its own and autovacuum keeps the statistics, only later.
"""

from __future__ import annotations

from django.db import migrations

from rls.role import ROLE

TABLES = "ctx_block, ctx_blockchunk"


def _sql(verb: str) -> str:
    clause = (
        f"GRANT MAINTAIN ON {TABLES} TO {ROLE}"
        if verb == "grant"
        else (f"REVOKE MAINTAIN ON {TABLES} FROM {ROLE}")
    )
    return f"""
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 170000 THEN
        EXECUTE '{clause}';
    ELSE
        RAISE WARNING 'PostgreSQL before 17: {ROLE} cannot ANALYZE {TABLES} (autovacuum will)';
    END IF;
END $$;
"""  # noqa: S608 - constants only


class Migration(migrations.Migration):
    dependencies = [("rls", "0013_refindex_word_policy")]

    operations = [migrations.RunSQL(_sql("grant"), _sql("revoke"))]
