"""The briefing API: the context block for a system prompt, and what changed since."""

from __future__ import annotations

from briefing import operations as ops
from ctx.api.routing import READ, Op, endpoint

context = endpoint(get=Op(ops.context, ops.ContextInput, bucket=READ, text=ops.context_text))
changes = endpoint(get=Op(ops.changes, ops.ChangesInput, bucket=READ, text=ops.changes_text))
