"""Row-level security: PostgreSQL policies as a second wall behind the tenant filters in code.

`rls.context` carries the caller's scopes (or the system context of workers and commands)
to every database connection; `migrations/rls` holds the policies and the runtime role.
See docs/rls.md.
"""
