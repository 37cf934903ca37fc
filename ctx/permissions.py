"""Permission tiers: one rule, one identical 403 body for every refusal."""

from __future__ import annotations

from ctx.errors import Forbidden
from ctx.principal import Principal

TIER_MESSAGE = "This action needs a higher permission tier."


def require_tier(principal: Principal) -> None:
    """Tenant owners and admins, and server admins, may manage their tenant."""
    if not (principal.is_admin or principal.role in {"owner", "admin"}):
        raise Forbidden(TIER_MESSAGE)
