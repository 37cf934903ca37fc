"""Row-level security: the runtime role `ctx_app`, its grants, and a policy on every table that
holds a tenant's knowledge (docs/rls.md).

A row is visible when its scope is in `ctx.scope_ids` (written: `ctx.write_scope_ids`), or
when the session is in the system context (`ctx.system = on`). Missing settings mean no
scopes: an unconfigured connection sees nothing. Tables keyed by a block (chunks, anchors) use
the parent's visibility, which the block's own policy decides.
"""

from __future__ import annotations

from django.db import migrations

ROLE = "ctx_app"

# (table, column holding the scope) — scope-keyed tables.
SCOPED = [
    ("ctx_block", "scope_id"),
    ("dream_link", "scope_id"),
    ("dream_dreamstate", "scope_id"),
    ("dream_guardflag", "scope_id"),
    ("dream_digeststate", "scope_id"),
    ("secrets_secret", "scope_id"),
]
# Tables keyed by a block: visible (writable) when their block is.
BY_BLOCK = ["ctx_blockchunk", "ctx_temporalanchor"]

FUNCTIONS = """
CREATE OR REPLACE FUNCTION ctx_rls_system() RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(current_setting('ctx.system', true), '') = 'on' $$;
CREATE OR REPLACE FUNCTION ctx_rls_read() RETURNS bigint[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('ctx.scope_ids', true), ''), '{}')::bigint[] $$;
CREATE OR REPLACE FUNCTION ctx_rls_write() RETURNS bigint[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('ctx.write_scope_ids', true), ''), '{}')::bigint[] $$;
"""
DROP_FUNCTIONS = """
DROP FUNCTION IF EXISTS ctx_rls_system();
DROP FUNCTION IF EXISTS ctx_rls_read();
DROP FUNCTION IF EXISTS ctx_rls_write();
"""

# Created here for the embedded mode; an operator may create it first (with a password) and
# the migration then only checks it. LOGIN without a password cannot log in over password
# authentication, only where pg_hba already trusts every local role (the embedded socket).
ROLE_SQL = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
        CREATE ROLE {ROLE} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}'
               AND (rolsuper OR rolbypassrls)) THEN
        RAISE EXCEPTION 'role {ROLE} must be NOSUPERUSER NOBYPASSRLS (docs/rls.md)';
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO {ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {ROLE};
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {ROLE};
REVOKE INSERT, UPDATE, DELETE ON django_migrations FROM {ROLE};
"""  # noqa: S608 - constants only
REVOKE_SQL = f"""
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM {ROLE};
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {ROLE};
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {ROLE};
REVOKE USAGE ON SCHEMA public FROM {ROLE};
"""

# A non-LEAKPROOF operator in a query on a policed table may not run before the policy, so
# PostgreSQL will not use it as an index condition: the full-text and trigram arms would
# filter every row of the caller's scopes instead of using their GIN indexes (measured,
# docs/rls.md). These built-ins raise no error that depends on row data, and every statement
# here is ours (values are parameters), so marking them LEAKPROOF opens nothing. Only a
# superuser may; elsewhere the migration warns and the arms stay correct, only slower.
LEAKPROOF = [
    "ts_match_vq(tsvector, tsquery)",  # tsv @@ tsquery
    "similarity_op(text, text)",  # title % q
    "word_similarity_op(text, text)",  # q <% title
    "word_similarity_commutator_op(text, text)",  # title %> q
    "arraycontains(anyarray, anyarray)",  # tags @> …
]


def _leakproof(on: bool) -> str:
    flag = "LEAKPROOF" if on else "NOT LEAKPROOF"
    alters = "".join(
        f"        EXECUTE 'ALTER FUNCTION {f} {flag}';\n"
        for f in LEAKPROOF
    )
    return f"""
DO $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
{alters}    ELSE
        RAISE WARNING 'not a superuser: text indexes unused under RLS (docs/rls.md)';
    END IF;
END $$;
"""  # noqa: S608 - constants only


# The settings are read once per statement through an initplan ((SELECT f())), not per row,
# and `scope_id = ANY(initplan)` stays usable as an index condition.
SYSTEM = "(SELECT ctx_rls_system())"


def _scoped(column: str, ids: str) -> str:
    return f"({SYSTEM} OR {column} = ANY ((SELECT {ids}())::bigint[]))"


def _by_block(ids: str) -> str:
    # The subquery on ctx_block is itself policed: "read" means the block is visible.
    if ids == "ctx_rls_read":
        return "EXISTS (SELECT 1 FROM ctx_block b WHERE b.id = block_id)"
    return (
        "EXISTS (SELECT 1 FROM ctx_block b WHERE b.id = block_id"  # noqa: S608 - constants
        f" AND {_scoped('b.scope_id', ids)})"
    )


def _policies(table: str, read: str, write: str) -> str:
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
CREATE POLICY ctx_read ON {table} FOR SELECT USING {read};
CREATE POLICY ctx_insert ON {table} FOR INSERT WITH CHECK {write};
CREATE POLICY ctx_update ON {table} FOR UPDATE USING {write} WITH CHECK {write};
CREATE POLICY ctx_delete ON {table} FOR DELETE USING {write};
"""


def by_own_scope(table: str) -> str:
    """Replace a table's policies with ones testing its own scope_id column (0002-0004)."""
    read, write = _scoped("scope_id", "ctx_rls_read"), _scoped("scope_id", "ctx_rls_write")
    return _drop(table) + _policies(table, read, write)


def by_block(table: str) -> str:
    """Replace a table's policies with ones through its block (this migration's rule)."""
    read, write = f"({_by_block('ctx_rls_read')})", f"({_by_block('ctx_rls_write')})"
    return _drop(table) + _policies(table, read, write)


def _drop(table: str) -> str:
    names = ("ctx_read", "ctx_insert", "ctx_update", "ctx_delete")
    drops = "".join(f"DROP POLICY IF EXISTS {n} ON {table};\n" for n in names)
    return drops + f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;\n"


def policies_sql() -> str:
    parts = [
        _policies(t, _scoped(c, "ctx_rls_read"), _scoped(c, "ctx_rls_write")) for t, c in SCOPED
    ]
    parts += [
        _policies(t, f"({_by_block('ctx_rls_read')})", f"({_by_block('ctx_rls_write')})")
        for t in BY_BLOCK
    ]
    return "".join(parts)


def drop_sql() -> str:
    return "".join(_drop(t) for t, _ in SCOPED) + "".join(_drop(t) for t in BY_BLOCK)


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0007_settings_registry"),
        ("dream", "0002_dreamstate_fillfactor"),
        ("secrets", "0001_initial"),
        ("retrieval", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        migrations.RunSQL(ROLE_SQL, REVOKE_SQL),
        migrations.RunSQL(policies_sql(), drop_sql()),
        migrations.RunSQL(_leakproof(True), _leakproof(False)),
    ]
