"""The three wire formats: OpenAI-compatible chat, Ollama chat, Anthropic messages."""

from __future__ import annotations

import json
from typing import Any

from ctx.outbound import v1_url
from retrieval.llm.base import Ask, Completion, HttpLLM, LLMError

ANTHROPIC_VERSION = "2023-06-01"


def _counts(usage: Any, tokens_in: str, tokens_out: str) -> tuple[int, int]:
    """Token counts; providers omit them now and then, which must not fail the call."""
    usage = usage if isinstance(usage, dict) else {}
    return int(usage.get(tokens_in) or 0), int(usage.get(tokens_out) or 0)


class OpenAIChat(HttpLLM):
    """`POST /v1/chat/completions`; a schema goes in `response_format` as strict json_schema
    (OpenAI, llama.cpp, vLLM, LiteLLM, …). Strict mode wants every property required and
    `additionalProperties: false`; that is the caller's schema to get right."""

    provider = "openai"
    default_base_url = "https://api.openai.com"

    def _request(self, ask: Ask) -> tuple[str, dict[str, Any], dict[str, str]]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": list(ask.messages),
            "max_tokens": ask.max_tokens,
            "temperature": ask.temperature,
        }
        if ask.schema is not None:
            schema = {"name": ask.schema_name(), "schema": ask.schema, "strict": True}
            payload["response_format"] = {"type": "json_schema", "json_schema": schema}
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        return v1_url(self.base_url, "chat/completions"), payload, headers

    def _parse(self, body: Any, ask: Ask) -> Completion:
        message = body["choices"][0]["message"]
        if message.get("refusal"):
            raise LLMError("bad_response", "the model refused", provider=self.provider)
        tokens_in, tokens_out = _counts(body.get("usage"), "prompt_tokens", "completion_tokens")
        return Completion(
            message.get("content") or "", body.get("model", ""), tokens_in, tokens_out
        )


class OllamaChat(HttpLLM):
    """`POST /api/chat` with `stream: false`; a schema goes in `format`."""

    provider = "ollama"
    default_base_url = "http://127.0.0.1:11434"

    def _request(self, ask: Ask) -> tuple[str, dict[str, Any], dict[str, str]]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": list(ask.messages),
            "stream": False,
            "options": {"temperature": ask.temperature, "num_predict": ask.max_tokens},
        }
        if ask.schema is not None:
            payload["format"] = ask.schema
        # Ollama has no auth of its own; a key is for a proxy in front of it.
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        return f"{self.base_url}/api/chat", payload, headers

    def _parse(self, body: Any, ask: Ask) -> Completion:
        text = body["message"]["content"] or ""
        tokens_in, tokens_out = _counts(body, "prompt_eval_count", "eval_count")
        return Completion(text, body.get("model", ""), tokens_in, tokens_out)


class AnthropicChat(HttpLLM):
    """`POST /v1/messages`. System messages go to the top-level `system`; a schema becomes
    one forced tool whose `input_schema` it is, and the answer is that tool call's input."""

    provider = "anthropic"
    default_base_url = "https://api.anthropic.com"

    def _request(self, ask: Ask) -> tuple[str, dict[str, Any], dict[str, str]]:
        system = "\n\n".join(m["content"] for m in ask.messages if m["role"] == "system")
        payload: dict[str, Any] = {
            "model": self.model,
            "max_tokens": ask.max_tokens,
            "temperature": ask.temperature,
            "messages": [m for m in ask.messages if m["role"] != "system"],
        }
        if system:
            payload["system"] = system
        if ask.schema is not None:
            payload.update(_forced_tool(ask))
        headers = {"x-api-key": self._api_key, "anthropic-version": ANTHROPIC_VERSION}
        return v1_url(self.base_url, "messages"), payload, headers

    def _parse(self, body: Any, ask: Ask) -> Completion:
        blocks = body["content"]
        tokens_in, tokens_out = _counts(body.get("usage"), "input_tokens", "output_tokens")
        model = body.get("model", "")
        if ask.schema is None:
            text = "".join(b["text"] for b in blocks if b.get("type") == "text")
            return Completion(text, model, tokens_in, tokens_out)
        tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
        if tool is None:
            raise LLMError("invalid_json", "no tool_use block in the answer", provider="anthropic")
        data = tool["input"]
        return Completion(json.dumps(data, ensure_ascii=False), model, tokens_in, tokens_out, data)


def _forced_tool(ask: Ask) -> dict[str, Any]:
    name = ask.schema_name()
    tool = {
        "name": name,
        "description": "Give the answer as this tool's input.",
        "input_schema": ask.schema,
    }
    return {"tools": [tool], "tool_choice": {"type": "tool", "name": name}}


PROVIDERS: dict[str, type[HttpLLM]] = {
    "openai": OpenAIChat,
    "ollama": OllamaChat,
    "anthropic": AnthropicChat,
}
