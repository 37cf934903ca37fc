"""Who is calling: an API key resolved to its tenant and scope sets."""

from __future__ import annotations

from dataclasses import dataclass

from ctx.models import ApiKey
from ctx.sensitivity import PERSONAL, rank


@dataclass(frozen=True)
class Principal:
    key: ApiKey
    tenant_id: int
    tenant_name: str
    home_scope_id: int
    read_scope_ids: frozenset[int]  # includes every writable scope (write implies read)
    write_scope_ids: frozenset[int]
    scope_names: dict[str, int]  # readable scope name -> id, within the key's tenant
    # The highest block sensitivity read in clear (the key's max_sensitivity; an OAuth token
    # acts for its key, so it carries the key's). Above it text is redacted (ctx/masking.py).
    read_ceiling: str = PERSONAL

    @property
    def is_admin(self) -> bool:
        return self.key.is_admin

    @property
    def role(self) -> str:
        return self.key.role

    def can_read(self, scope_id: int) -> bool:
        return scope_id in self.read_scope_ids

    def can_write(self, scope_id: int) -> bool:
        return scope_id in self.write_scope_ids

    def reads_in_clear(self, level: str) -> bool:
        """Whether block text at `level` is shown; an unknown level ranks highest (masked)."""
        return rank(level) <= rank(self.read_ceiling)
