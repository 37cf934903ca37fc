"""Memory formation's hooks into the block and conversation write paths (registered in
MemoryConfig.ready)."""

from __future__ import annotations

from ctx.principal import Principal
from memory import services, sources, tasks


def on_blocks_written(block_ids: list[str]) -> None:
    """BLOCKS_WRITTEN (after commit): extract from the written blocks. The task itself skips
    what is not extracted from (transcript windows, extracted facts and entities), so a
    store pays no query for it here."""
    tasks.enqueue([sources.block_key(b) for b in block_ids])


def on_sessions_written(session_ids: list[int]) -> None:
    """SESSIONS_WRITTEN (after an import committed): extract from the changed sessions."""
    tasks.enqueue([sources.session_key(s) for s in session_ids])


def on_blocks_removed(principal: Principal, block_ids: list[str]) -> None:
    """BLOCKS_REMOVED (inside the archive or purge): forget what only they said."""
    services.forget_sources([sources.block_key(b) for b in block_ids])


def on_sessions_removed(principal: Principal, session_ids: list[int]) -> None:
    """SESSIONS_REMOVED (inside the deletion): forget what only they said."""
    services.forget_sources([sources.session_key(s) for s in session_ids])
