"""LLM providers behind one interface: OpenAI-compatible chat, Ollama, Anthropic.

    llm = get_llm()            # None when no LLM is configured: use the deterministic mode
    if llm is not None:
        result = llm.complete(messages, schema=SCHEMA, pipeline="dream.link_type")
        result.json            # validated against SCHEMA's top level; LLMError otherwise

Every call goes through ctx.outbound and is logged as an LLMCall row.
"""

from __future__ import annotations

from retrieval.llm.base import (
    HttpLLM,
    LLMError,
    LLMProvider,
    LLMResult,
    Message,
    schema_problems,
)
from retrieval.llm.factory import FallbackLLM, config_problems, get_llm
from retrieval.llm.providers import PROVIDERS, AnthropicChat, OllamaChat, OpenAIChat

__all__ = [
    "PROVIDERS",
    "AnthropicChat",
    "FallbackLLM",
    "HttpLLM",
    "LLMError",
    "LLMProvider",
    "LLMResult",
    "Message",
    "OllamaChat",
    "OpenAIChat",
    "config_problems",
    "get_llm",
    "schema_problems",
]
