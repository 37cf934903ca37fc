"""Reads of retrieval's own rows for the operators' admin."""

from __future__ import annotations

from django.db.models import QuerySet

from ctx.permissions import is_server_admin
from ctx.principal import Principal
from retrieval.models import LLMCall


def visible_llm_calls(principal: Principal, qs: QuerySet[LLMCall]) -> QuerySet[LLMCall]:
    """The LLM call log is server-wide (no tenant column; prompts may quote any tenant's
    knowledge when bodies are logged): server admins only."""
    return qs if is_server_admin(principal) else qs.none()
