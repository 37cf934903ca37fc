"""Which rows the database lets this code see: the caller's scopes, or the system context.

The policies (migrations/rls) read three settings of the session: `ctx.scope_ids` (readable
scope ids), `ctx.write_scope_ids` (writable ones) and `ctx.system` ("on" for workers and
commands that must see every tenant). This module keeps the wanted context in a ContextVar
(per request, per MCP call) with a per-process default, and an execute wrapper puts it on the
connection before the next statement whenever the connection carries a different one. A
connection whose role bypasses RLS (the owner in tests and migrations) is left alone.

This is a wall against a forgotten filter in code, not against SQL injection: the runtime
role can change its own settings (see docs/rls.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from psycopg.pq import TransactionStatus

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    from ctx.principal import Principal


@dataclass(frozen=True)
class Context:
    system: bool = False
    read: tuple[int, ...] = ()
    write: tuple[int, ...] = ()

    def params(self) -> tuple[str, str, str]:
        return ("on" if self.system else "off", _array(self.read), _array(self.write))


def _array(ids: Iterable[int]) -> str:
    return "{" + ",".join(str(int(i)) for i in sorted(ids)) + "}"


NONE = Context()  # no scopes: the policed tables look empty
SYSTEM = Context(system=True)

_current: ContextVar[Context | None] = ContextVar("ctx_rls_context", default=None)
_process_default = NONE

# The connection's role ignores RLS (superuser, BYPASSRLS or owner): nothing to apply.
OFF = "off"
# Applied inside a transaction that may roll back (and take the setting with it).
UNKNOWN = "unknown"
_STATE = "_ctx_rls_state"

_APPLY = (
    "SELECT set_config('ctx.system', %s, false), set_config('ctx.scope_ids', %s, false),"
    " set_config('ctx.write_scope_ids', %s, false)"
)
_BYPASSES = "SELECT r.rolsuper OR r.rolbypassrls FROM pg_roles r WHERE r.rolname = current_user"


def current() -> Context:
    value = _current.get()
    return _process_default if value is None else value


def for_principal(principal: Principal) -> Context:
    return Context(read=tuple(principal.read_scope_ids), write=tuple(principal.write_scope_ids))


def enter(principal: Principal) -> Token[Context | None]:
    """The request path: the caller's readable and writable scopes from now on."""
    return _current.set(for_principal(principal))


def leave(token: Token[Context | None]) -> None:
    _current.reset(token)


def clear() -> None:
    """Forget the request's context (a thread that serves the next request starts empty)."""
    _current.set(None)


def enter_system_process() -> None:
    """Celery workers, beat and management commands: every tenant, deliberately. Never called
    on a request-driven path."""
    global _process_default
    _process_default = SYSTEM


@contextmanager
def using(context: Context) -> Iterator[None]:
    token = _current.set(context)
    try:
        yield
    finally:
        _current.reset(token)


def arm(connection: BaseDatabaseWrapper) -> None:
    """On a new connection (and after a test's SET ROLE): apply the context unless the role
    ignores RLS anyway, and make sure every statement goes through the wrapper."""
    raw = connection.connection
    with raw.cursor() as cur:
        cur.execute(_BYPASSES)
        row = cur.fetchone()
        bypasses = bool(row and row[0])
        if not bypasses:
            cur.execute(_APPLY, current().params())
    state: object = OFF if bypasses else (UNKNOWN if connection.in_atomic_block else current())
    setattr(connection, _STATE, state)
    if wrapper not in connection.execute_wrappers:
        connection.execute_wrappers.append(wrapper)


def wrapper(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    connection = context["connection"]
    state = getattr(connection, _STATE, OFF)
    if state is not OFF and not _bookkeeping(sql, context["cursor"].cursor):
        wanted = current()
        if state != wanted:
            context["cursor"].cursor.execute(_APPLY, wanted.params())
            # A rollback would undo the setting: inside a transaction, check again next time.
            setattr(connection, _STATE, UNKNOWN if connection.in_atomic_block else wanted)
    return execute(sql, params, many, context)


_TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE", "ROLLBACK")


def _bookkeeping(sql: Any, cursor: Any) -> bool:
    """Savepoint statements touch no table, and a failed transaction accepts nothing but a
    rollback: neither needs (or allows) the context first."""
    if isinstance(sql, str) and sql.lstrip().upper().startswith(_TRANSACTION_CONTROL):
        return True
    return bool(cursor.connection.info.transaction_status == TransactionStatus.INERROR)
