"""The LLM provider interface, its typed result and error, and the shared HTTP template.

A provider only knows its wire format (`_request` builds it, `_parse` reads it); `HttpLLM`
does the rest once for all of them: the outbound call, timing, structured-output validation
and the LLMCall log row.
"""

from __future__ import annotations

import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypedDict

from ctx import outbound
from ctx.errors import Unavailable
from ctx.sensitivity import INTERNAL, detect_all, highest
from ctx.trust import ensure_trusted
from retrieval.llm.calllog import record_call

Role = Literal["system", "user", "assistant"]
LLMErrorKind = Literal["outbound", "bad_response", "invalid_json", "schema"]


class Message(TypedDict):
    role: Role
    content: str


@dataclass(frozen=True)
class LLMResult:
    """The answer: `json` is the validated object when a schema was given, else None."""

    text: str
    json: Any
    model: str
    tokens_in: int
    tokens_out: int
    duration_ms: int
    provider: str = ""


class LLMError(Unavailable):
    """An LLM call failed. `kind == "outbound"` means the endpoint could not be reached or
    answered with an error status (`cause` holds the OutboundError); the other kinds mean
    it answered something unusable. Callers fall back to their deterministic mode."""

    def __init__(
        self,
        kind: LLMErrorKind,
        message: str,
        *,
        provider: str,
        cause: outbound.OutboundError | None = None,
    ) -> None:
        super().__init__(f"LLM {provider}: {message}")
        self.kind: LLMErrorKind = kind
        self.provider = provider
        self.cause = cause


@dataclass(frozen=True)
class Ask:
    """One request, as every provider receives it."""

    messages: Sequence[Message]
    schema: dict[str, Any] | None
    max_tokens: int
    temperature: float
    pipeline: str

    def schema_name(self) -> str:
        """A name for the schema (OpenAI and Anthropic require one: [a-zA-Z0-9_-]{1,64})."""
        title = (self.schema or {}).get("title") or self.pipeline or "result"
        return re.sub(r"[^a-zA-Z0-9_-]", "_", str(title))[:64]


@dataclass(frozen=True)
class Completion:
    """What a wire format yields before validation; `data` is set when the provider hands
    back structured output as an object (Anthropic's tool input) rather than as text."""

    text: str
    model: str
    tokens_in: int
    tokens_out: int
    data: Any = None


class LLMProvider(ABC):
    provider: str
    model: str

    @abstractmethod
    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        pipeline: str,
        sensitivity: str = INTERNAL,
    ) -> LLMResult:
        """The model's answer; with a schema, `json` holds the validated object.
        `sensitivity` is the highest level of what the messages carry (the blocks' stored
        levels). Raises LLMError; SensitivityBlocked when that is above CTX_LLM_TRUST."""


class HttpLLM(LLMProvider):
    """Template for providers reached over HTTP through ctx.outbound."""

    default_base_url: ClassVar[str]

    def __init__(
        self, *, model: str, base_url: str = "", api_key: str = "", timeout: float = 60.0
    ) -> None:
        self.model = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self._api_key = api_key
        self.timeout = timeout

    def __repr__(self) -> str:  # never shows the key
        return f"<{type(self).__name__} {self.model} {self.base_url}>"

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        pipeline: str,
        sensitivity: str = INTERNAL,
    ) -> LLMResult:
        # The one LLM guard, before the call log and the wire: the declared level, raised by
        # what the detector finds in the messages themselves (queries, under-declared text).
        found = detect_all(m["content"] for m in messages).level
        ensure_trusted("llm", highest(sensitivity, found))
        ask = Ask(list(messages), schema, max_tokens, temperature, pipeline)
        started = time.monotonic()
        try:
            result = self._complete(ask, started)
        except LLMError as err:
            self._log(ask, ok=False, ms=_ms_since(started), error=str(err))
            raise
        self._log(ask, ok=True, ms=result.duration_ms, result=result)
        return result

    def _complete(self, ask: Ask, started: float) -> LLMResult:
        done = self._call(ask)
        data = structured(done, ask.schema, self.provider) if ask.schema is not None else None
        return LLMResult(
            text=done.text,
            json=data,
            model=done.model or self.model,
            tokens_in=done.tokens_in,
            tokens_out=done.tokens_out,
            duration_ms=_ms_since(started),
            provider=self.provider,
        )

    def _call(self, ask: Ask) -> Completion:
        url, payload, headers = self._request(ask)
        try:
            answer = outbound.post_json(url, payload, headers=headers, timeout=self.timeout)
        except outbound.OutboundError as exc:
            raise LLMError("outbound", str(exc), provider=self.provider, cause=exc) from exc
        try:
            return self._parse(answer.json, ask)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            message = f"unexpected answer shape ({type(exc).__name__}: {exc})"
            raise LLMError("bad_response", message, provider=self.provider) from exc

    def _log(
        self, ask: Ask, *, ok: bool, ms: int, error: str = "", result: LLMResult | None = None
    ) -> None:
        record_call(
            pipeline=ask.pipeline,
            provider=self.provider,
            model=result.model if result else self.model,
            duration_ms=ms,
            tokens_in=result.tokens_in if result else 0,
            tokens_out=result.tokens_out if result else 0,
            ok=ok,
            error=error,
            prompt=ask.messages,
            response=result.text if result else "",
        )

    @abstractmethod
    def _request(self, ask: Ask) -> tuple[str, dict[str, Any], dict[str, str]]:
        """(url, JSON payload, headers) for this provider's wire format."""

    @abstractmethod
    def _parse(self, body: Any, ask: Ask) -> Completion:
        """Read the provider's answer; shape errors (KeyError, …) become LLMError."""


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


# --- structured output ------------------------------------------------------------------------

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def structured(done: Completion, schema: dict[str, Any], provider: str) -> Any:
    """The answer's JSON object, parsed and checked against the schema's top level."""
    data = done.data if done.data is not None else _loads(done.text, provider)
    problems = schema_problems(data, schema)
    if problems:
        raise LLMError("schema", "; ".join(problems), provider=provider)
    return data


def _loads(text: str, provider: str) -> Any:
    # Some models wrap JSON in a Markdown fence even when asked for JSON only.
    fenced = _FENCE.match(text.strip())
    try:
        return json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        message = f"answer is not JSON: {text[:120]!r}"
        raise LLMError("invalid_json", message, provider=provider) from None


def schema_problems(data: Any, schema: dict[str, Any]) -> list[str]:
    """What breaks the schema's top level: its type, required keys, the properties' types."""
    expected = schema.get("type")
    if expected and not _is_type(data, expected):
        return [f"top level is not {expected}"]
    if not isinstance(data, dict):
        return []
    problems = [f"missing key {k!r}" for k in schema.get("required", []) if k not in data]
    for key, sub in (schema.get("properties") or {}).items():
        wanted = sub.get("type") if isinstance(sub, dict) else None
        if key in data and wanted and not _is_type(data[key], wanted):
            problems.append(f"{key!r} is not {wanted}")
    return problems


def _is_type(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    for name in names:
        if name in ("integer", "number") and isinstance(value, bool):
            continue  # JSON booleans are not numbers, Python's are
        python_type = _JSON_TYPES.get(name)
        if python_type is None or isinstance(value, python_type):
            return True  # an unknown type name is not ours to reject
    return False
