"""LLM providers end to end: the OpenAI-compatible one against a real SmolLM2 server, the
Anthropic and Ollama wire formats against local fake servers, fallback and call logging."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from retrieval.llm import (
    AnthropicChat,
    FallbackLLM,
    LLMError,
    Message,
    OllamaChat,
    OpenAIChat,
    get_llm,
)
from retrieval.models import LLMCall
from tests.fake_http import FakeServer, Reply, Seen, dead_url, json_reply
from tests.llm_server import MODEL_NAME, llm_server  # noqa: F401  (fixture)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "city": {"type": "string"}},
    "required": ["name", "city"],
    "additionalProperties": False,
}
MESSAGES: list[Message] = [
    {"role": "system", "content": "You extract facts and answer in JSON."},
    {"role": "user", "content": "Anna Schmidt lives in Berlin. Give her name and city."},
]
KEY = "sk-ant-test-0123456789"


def openai_reply(content: str) -> Reply:
    return Reply(
        json={
            "model": "fake-gpt",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7},
        }
    )


def configure(settings: Any, **values: Any) -> None:
    settings.CTX = {**settings.CTX, **values}


# --- a real model over real HTTP ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_it_returns_schema_valid_json_from_a_real_model(llm_server: str) -> None:  # noqa: F811
    llm = OpenAIChat(model=MODEL_NAME, base_url=llm_server, timeout=120)
    result = llm.complete(MESSAGES, schema=SCHEMA, max_tokens=60, pipeline="test.extract")
    assert isinstance(result.json, dict) and {"name", "city"} <= result.json.keys()
    assert json.loads(result.text) == result.json
    assert result.tokens_in > 0 and result.tokens_out > 0 and result.provider == "openai"
    call = LLMCall.objects.get()
    assert (call.pipeline, call.provider, call.ok, call.error) == (
        "test.extract",
        "openai",
        True,
        "",
    )
    assert (call.tokens_in, call.tokens_out) == (result.tokens_in, result.tokens_out)
    assert call.duration_ms == result.duration_ms > 0
    assert call.prompt == "" and call.response == ""  # bodies are off by default


@pytest.mark.slow
@pytest.mark.django_db
def test_it_falls_back_when_the_primary_endpoint_is_down(
    settings: Any,
    llm_server: str,  # noqa: F811
) -> None:
    configure(
        settings,
        CTX_LLM_PROVIDER="openai",
        CTX_LLM_BASE_URL=dead_url(),
        CTX_LLM_MODEL="primary-model",
        CTX_LLM_FALLBACK_PROVIDER="openai",
        CTX_LLM_FALLBACK_BASE_URL=llm_server,
        CTX_LLM_FALLBACK_MODEL=MODEL_NAME,
    )
    llm = get_llm()
    assert isinstance(llm, FallbackLLM)
    result = llm.complete(MESSAGES, schema=SCHEMA, max_tokens=60, pipeline="test.fallback")
    assert {"name", "city"} <= result.json.keys()
    calls = list(LLMCall.objects.order_by("id").values_list("model", "ok"))
    assert calls == [("primary-model", False), (result.model, True)]
    assert "transport" in LLMCall.objects.get(ok=False).error


# --- fallback rules, logging, configuration ---------------------------------------------------


@pytest.mark.django_db
def test_it_does_not_fall_back_when_the_answer_is_unusable() -> None:
    with (
        FakeServer(lambda s, n: openai_reply("not json at all")) as primary,
        FakeServer(lambda s, n: openai_reply('{"name": "A", "city": "B"}')) as secondary,
    ):
        llm = FallbackLLM(
            OpenAIChat(model="a", base_url=primary.url),
            OpenAIChat(model="b", base_url=secondary.url),
        )
        with pytest.raises(LLMError) as err:
            llm.complete(MESSAGES, schema=SCHEMA, pipeline="test.nofallback")
    assert err.value.kind == "invalid_json"
    assert secondary.seen == []
    assert LLMCall.objects.get().ok is False


@pytest.mark.django_db
def test_it_rejects_json_without_the_required_keys() -> None:
    with (
        FakeServer(lambda s, n: openai_reply('{"name": "Anna"}')) as server,
        pytest.raises(LLMError) as err,
    ):
        OpenAIChat(model="m", base_url=server.url).complete(
            MESSAGES, schema=SCHEMA, pipeline="test.schema"
        )
    assert err.value.kind == "schema" and "'city'" in str(err.value)
    call = LLMCall.objects.get()
    assert not call.ok and "city" in call.error


@pytest.mark.django_db
def test_it_sends_the_openai_json_schema_format_and_logs_bodies_when_asked(settings: Any) -> None:
    configure(settings, CTX_LLM_LOG_BODIES=True)
    with FakeServer(lambda s, n: openai_reply('```json\n{"name": "A", "city": "B"}\n```')) as srv:
        result = OpenAIChat(model="m", base_url=srv.url, api_key="sk-openai-123456").complete(
            MESSAGES, schema=SCHEMA, max_tokens=33, temperature=0.2, pipeline="test.bodies"
        )
    sent = srv.seen[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-openai-123456"
    assert sent.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "test_bodies", "schema": SCHEMA, "strict": True},
    }
    assert (sent.body["max_tokens"], sent.body["temperature"]) == (33, 0.2)
    assert result.json == {"name": "A", "city": "B"} and result.model == "fake-gpt"
    call = LLMCall.objects.get()
    assert "Anna Schmidt" in call.prompt and '"city": "B"' in call.response
    assert (call.tokens_in, call.tokens_out) == (11, 7)


def test_it_answers_even_when_the_call_log_cannot_be_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # No django_db mark: pytest-django refuses the INSERT, a real failure of the log write.
    with FakeServer(lambda s, n: openai_reply("plain text")) as server:
        result = OpenAIChat(model="m", base_url=server.url).complete(
            MESSAGES, pipeline="test.nolog"
        )
    assert result.text == "plain text" and result.json is None
    assert "could not log an LLM call" in caplog.text


@pytest.mark.django_db  # get_llm reads the live overrides (settings registry)
def test_it_is_none_without_an_llm_configured(settings: Any) -> None:
    configure(settings, CTX_LLM_PROVIDER="none", CTX_LLM_FALLBACK_PROVIDER="none")
    assert get_llm() is None


@pytest.mark.django_db  # get_llm reads the live overrides (settings registry)
def test_it_refuses_an_incomplete_llm_configuration(settings: Any) -> None:
    configure(settings, CTX_LLM_PROVIDER="anthropic", CTX_LLM_MODEL="", CTX_LLM_API_KEY="")
    with pytest.raises(ImproperlyConfigured) as err:
        get_llm()
    assert "CTX_LLM_MODEL" in str(err.value) and "CTX_LLM_API_KEY" in str(err.value)


# --- Anthropic and Ollama wire formats --------------------------------------------------------


def anthropic(seen: Seen, number: int) -> Reply:
    if seen.body.get("tools"):
        name = seen.body["tools"][0]["name"]
        content = [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": name,
                "input": {"name": "Anna", "city": "Berlin"},
            }
        ]
    else:
        content = [{"type": "text", "text": "Anna lives in Berlin."}]
    usage = {"input_tokens": 21, "output_tokens": 9}
    return Reply(
        json={
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": content,
            "usage": usage,
        }
    )


@pytest.mark.django_db
def test_it_speaks_the_anthropic_messages_api_with_a_forced_tool() -> None:
    with FakeServer(anthropic) as server:
        llm = AnthropicChat(model="claude-x", base_url=server.url, api_key=KEY)
        result = llm.complete(MESSAGES, schema=SCHEMA, max_tokens=50, pipeline="test.anthropic")
    sent = server.seen[0]
    assert sent.path == "/v1/messages"
    assert (sent.headers["x-api-key"], sent.headers["anthropic-version"]) == (KEY, "2023-06-01")
    assert sent.body["system"] == MESSAGES[0]["content"]
    assert sent.body["messages"] == [MESSAGES[1]]
    assert sent.body["tools"][0]["input_schema"] == SCHEMA
    assert sent.body["tool_choice"] == {"type": "tool", "name": sent.body["tools"][0]["name"]}
    assert result.json == {"name": "Anna", "city": "Berlin"}
    assert (result.tokens_in, result.tokens_out, result.provider) == (21, 9, "anthropic")
    assert LLMCall.objects.get().provider == "anthropic"


@pytest.mark.django_db
def test_it_reads_anthropic_text_without_a_schema() -> None:
    with FakeServer(anthropic) as server:
        result = AnthropicChat(model="claude-x", base_url=server.url, api_key=KEY).complete(
            MESSAGES, pipeline="test.anthropic"
        )
    assert "tools" not in server.seen[0].body
    assert result.text == "Anna lives in Berlin." and result.json is None


@pytest.mark.django_db
def test_it_keeps_the_key_out_of_the_call_log() -> None:
    echo = {"type": "error", "error": {"message": f"invalid x-api-key {KEY}"}}
    with FakeServer(json_reply(echo, status=401)) as server, pytest.raises(LLMError) as err:
        AnthropicChat(model="c", base_url=server.url, api_key=KEY).complete(
            MESSAGES, pipeline="test.key"
        )
    assert err.value.kind == "outbound" and err.value.cause and err.value.cause.status == 401
    call = LLMCall.objects.get()
    assert "401" in call.error and KEY not in call.error and KEY not in str(err.value)


def ollama(seen: Seen, number: int) -> Reply:
    content = json.dumps({"name": "Anna", "city": "Berlin"}) if seen.body.get("format") else "Hi"
    return Reply(
        json={
            "model": seen.body["model"],
            "message": {"role": "assistant", "content": content},
            "done": True,
            "prompt_eval_count": 30,
            "eval_count": 12,
        }
    )


@pytest.mark.django_db
def test_it_speaks_the_ollama_chat_api_with_a_format_schema() -> None:
    with FakeServer(ollama) as server:
        result = OllamaChat(model="llama3.2", base_url=server.url).complete(
            MESSAGES, schema=SCHEMA, max_tokens=40, temperature=0.0, pipeline="test.ollama"
        )
    sent = server.seen[0]
    assert sent.path == "/api/chat"
    assert sent.body["stream"] is False and sent.body["format"] == SCHEMA
    assert sent.body["messages"] == MESSAGES
    assert sent.body["options"] == {"temperature": 0.0, "num_predict": 40}
    assert "authorization" not in sent.headers
    assert result.json == {"name": "Anna", "city": "Berlin"}
    assert (result.tokens_in, result.tokens_out, result.model) == (30, 12, "llama3.2")


@pytest.mark.django_db
def test_it_reports_an_answer_of_the_wrong_shape() -> None:
    with FakeServer(json_reply({"unexpected": True})) as server, pytest.raises(LLMError) as err:
        OllamaChat(model="m", base_url=server.url).complete(MESSAGES, pipeline="test.shape")
    assert err.value.kind == "bad_response"


def test_it_logs_nothing_secret_when_falling_back(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeServer(lambda s, n: openai_reply("fine")) as server:
        llm = FallbackLLM(
            AnthropicChat(model="c", base_url=dead_url(), api_key=KEY),
            OpenAIChat(model="m", base_url=server.url),
        )
        assert llm.complete(MESSAGES, pipeline="test.fallback").text == "fine"
    assert "asking the fallback" in caplog.text and KEY not in caplog.text
