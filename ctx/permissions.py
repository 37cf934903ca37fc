"""Permission tiers: one rule, one identical 403 body for every refusal.

The tiers, highest first (docs/api.md "Permissions"):
- server admin (`ApiKey.is_admin`): manages every tenant, creates and deletes tenants;
- tenant owner: manages its tenant, including admin and owner keys;
- tenant admin: manages member keys, scopes and OAuth clients of its tenant;
- member: manages nothing.
Whatever the reason a caller falls short, the answer is the same 403 body (TIER_MESSAGE), so a
refusal never says which rule failed.
"""

from __future__ import annotations

from ctx import sensitivity
from ctx.errors import Forbidden
from ctx.principal import Principal

TIER_MESSAGE = "This action needs a higher permission tier."

MEMBER, ADMIN, OWNER, SERVER_ADMIN = 0, 1, 2, 3
ROLE_RANK = {"member": MEMBER, "admin": ADMIN, "owner": OWNER}


def rank(principal: Principal) -> int:
    """The caller's tier: a server admin outranks every tenant role."""
    if principal.is_admin:
        return SERVER_ADMIN
    return ROLE_RANK.get(principal.role, MEMBER)


def refuse() -> Forbidden:
    return Forbidden(TIER_MESSAGE)


def require_tier(principal: Principal) -> None:
    """Tenant owners and admins, and server admins, may manage their tenant."""
    if rank(principal) < ADMIN:
        raise refuse()


def can_operate(principal: Principal) -> bool:
    """May the caller sign in to the operators' admin? Tenant admins and up (a member manages
    nothing there)."""
    return rank(principal) >= ADMIN


def is_server_admin(principal: Principal) -> bool:
    """Server admins reach every tenant (tenants, keys, OAuth clients, server-wide settings)."""
    return rank(principal) >= SERVER_ADMIN


def require_server_admin(principal: Principal) -> None:
    if not is_server_admin(principal):
        raise refuse()


def require_can_manage_role(principal: Principal, role: str, *, is_admin: bool = False) -> None:
    """May the caller mint or revoke a key of `role` (and the server-admin flag)?

    A tenant admin handles member keys only; an owner any role of its tenant; a server-admin key
    is handled by server admins only. Never above one's own tier.
    """
    needed = SERVER_ADMIN if is_admin else max(ADMIN, ROLE_RANK.get(role, OWNER) + 1)
    if role == "owner" and not is_admin:
        needed = OWNER  # owners manage owners (a tenant may have several)
    if rank(principal) < needed:
        raise refuse()


def ceiling_for_new_key(principal: Principal, wanted: str | None) -> str:
    """The read ceiling of a key the caller mints: `wanted`, or the default (personal) but never
    above the caller's own. Asking for more than one's own is a 403 that names the caller's
    ceiling (its own property: nothing about anyone else)."""
    own = principal.read_ceiling
    if wanted is None:
        return min(sensitivity.PERSONAL, own, key=sensitivity.rank)
    if sensitivity.rank(wanted) > sensitivity.rank(own):
        raise Forbidden(
            f"A key cannot mint a key that reads more than it does: this key reads up to "
            f"'{own}' in clear, and '{wanted}' is above that.",
            details={"field": "max_sensitivity"},
        )
    return wanted
