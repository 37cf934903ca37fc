"""The memory API: the facts extracted from blocks and conversations, with their sources."""

from __future__ import annotations

from ctx.api.routing import READ, Op, endpoint
from memory import operations as ops

facts = endpoint(get=Op(ops.facts_list, ops.FactsInput, bucket=READ))
fact = endpoint(get=Op(ops.fact_get, ops.FactInput, bucket=READ))
