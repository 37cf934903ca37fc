"""Reads of sealed secrets. `get_secret_for` is the only way an API caller reaches a row."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ctx import hooks
from ctx.errors import NotFound
from ctx.models import Scope
from ctx.principal import Principal
from ctx.selectors import readable_scope_ids, row_for

from .crypto import Sealed
from .models import Secret

# One body for "missing" and "not yours": a stranger learns nothing from a 404.
NOT_FOUND_MESSAGE = "Secret not found."

# Whatever uses a secret (settings rows, provider configs, …) registers a finder at the hook
# point that names its users; DELETE refuses while any finder answers.
REFERENCE_FINDERS: Iterable[Callable[[Secret], Iterable[str]]] = hooks.SECRET_REFERENCES


def references(secret: Secret) -> list[str]:
    """What refers to the secret, sorted; empty when it may be deleted."""
    return sorted({ref for finder in REFERENCE_FINDERS for ref in finder(secret)})


def qualified_scope(scope: Scope) -> str:
    """`tenant/scope`: scope names repeat across tenants, so this is what a ciphertext binds."""
    return f"{scope.tenant.name}/{scope.name}"


def sealed_of(secret: Secret) -> Sealed:
    return Sealed(
        ciphertext=bytes(secret.ciphertext),
        nonce=bytes(secret.nonce),
        key_version=secret.key_version,
    )


def get_secret_for(
    principal: Principal, name: str, scope: str | None, *, write: bool = False
) -> Secret:
    """The secret in the named (default: home) scope if readable; NotFound otherwise.
    `write`: locked, and Forbidden in a scope the principal may only read (ctx row_for)."""
    scope_id = principal.home_scope_id if scope is None else principal.scope_names.get(scope, -1)
    if not principal.can_read(scope_id):
        raise NotFound(NOT_FOUND_MESSAGE)
    qs = Secret.objects.select_related("scope__tenant").filter(scope_id=scope_id, name=name)
    return row_for(principal, qs, write=write, missing=NotFound(NOT_FOUND_MESSAGE))


def secrets_for(principal: Principal, scope_names: list[str]) -> list[Secret]:
    """Metadata rows in the named readable scopes (all readable ones when none are named)."""
    scope_ids = readable_scope_ids(principal, scope_names)
    return list(
        Secret.objects.in_scopes(scope_ids)
        .select_related("scope")
        .defer("ciphertext", "nonce")  # a listing never needs them
        .order_by("scope__name", "name")
    )


def find_secret(name: str, scope_ref: str | None) -> Secret:
    """For operators (no principal): SCOPE is `tenant/scope`, or a scope name unique to the
    secret; omitted, the name must be unique. LookupError says what to pass instead."""
    qs = Secret.objects.select_related("scope__tenant").filter(name=name)
    if scope_ref and "/" in scope_ref:
        tenant, _, scope = scope_ref.partition("/")
        qs = qs.filter(scope__tenant__name=tenant, scope__name=scope)
    elif scope_ref:
        qs = qs.filter(scope__name=scope_ref)
    rows = list(qs[:10])
    if not rows:
        raise LookupError(
            f"No secret named '{name}'" + (f" in '{scope_ref}'." if scope_ref else ".")
        )
    if len(rows) > 1:
        found = ", ".join(qualified_scope(r.scope) for r in rows)
        raise LookupError(f"'{name}' exists in several scopes ({found}); pass one as SCOPE.")
    return rows[0]


def secrets_exist() -> bool:
    return Secret.objects.exists()
