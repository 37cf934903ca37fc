"""Every CTX_* knob, declared once, parsed from the environment and validated as a whole.

Settings fail loudly: a malformed value stops the start, and every finding is listed at once
so an operator fixes them in one round trip. Django settings read the parsed values from here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

Parser = Callable[[str], Any]


class ConfigError(Exception):
    """Raised with every finding when the environment holds malformed settings."""

    def __init__(self, findings: list[str]) -> None:
        self.findings = findings
        super().__init__("Invalid configuration:\n" + "\n".join(f"  - {f}" for f in findings))


def parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of true/false/1/0/yes/no/on/off")


def parse_int(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError("expected an integer") from None


def parse_float(raw: str) -> float:
    try:
        return float(raw.strip())
    except ValueError:
        raise ValueError("expected a number") from None


def parse_str(raw: str) -> str:
    return raw.strip()


def parse_list(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def parse_url(raw: str) -> str:
    value = raw.strip()
    if "://" not in value:
        raise ValueError("expected a URL like scheme://host")
    return value


def choice(*options: str) -> Parser:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return value

    return parse


@dataclass(frozen=True)
class Knob:
    """One setting: its name, how to parse it, its default and how it may be changed."""

    name: str
    parse: Parser
    default: Any
    help: str
    secret: bool = False
    live: bool = False  # may change without a restart (database overrides, issue 7)
    tenant: bool = False  # tenants may override it
    bounds: tuple[float, float] | None = None
    type_name: str = field(default="str")


def _knob(name: str, kind: str, default: Any, doc: str, **kw: Any) -> Knob:
    parsers: dict[str, Parser] = {
        "bool": parse_bool,
        "int": parse_int,
        "float": parse_float,
        "str": parse_str,
        "list": parse_list,
        "url": parse_url,
    }
    parse = kw.pop("parse", None) or parsers[kind]
    return Knob(name=name, parse=parse, default=default, help=doc, type_name=kind, **kw)


KNOBS: tuple[Knob, ...] = (
    _knob(
        "DATABASE_URL",
        "url",
        "",
        "PostgreSQL URL; unset = the embedded server in CTX_DATA_DIR.",
        secret=True,
    ),
    _knob(
        "REDIS_URL",
        "url",
        "",
        "Redis URL (broker); unset = the embedded redis-server.",
        secret=True,
    ),
    _knob("CTX_DEBUG", "bool", False, "Django debug mode; never in production."),
    _knob(
        "CTX_SECRET_KEY",
        "str",
        "",
        "Django secret key and the pepper of API-key HMACs. Generated into ./.ctx/ when unset "
        "and CTX_DEBUG or the embedded mode is on; required otherwise.",
        secret=True,
    ),
    _knob("CTX_ALLOWED_HOSTS", "list", ["127.0.0.1", "localhost"], "Hosts Django answers."),
    _knob("CTX_PUBLIC_URL", "str", "", "Public origin behind a reverse proxy (https://host)."),
    _knob("CTX_DATA_DIR", "str", ".ctx", "Where the embedded PostgreSQL and Redis keep data."),
    _knob("CTX_HOST", "str", "127.0.0.1", "Address `make run` binds."),
    _knob(
        "CTX_PORT",
        "int",
        8000,
        "Port `make run` binds; a busy port falls back to a free one.",
        bounds=(0, 65535),
    ),
    _knob(
        "CTX_WORKERS", "int", 2, "Celery worker processes started by `make run`.", bounds=(0, 64)
    ),
    _knob("CTX_TIME_ZONE", "str", "Europe/Berlin", "Time zone for temporal expressions."),
    _knob(
        "CTX_MAX_CONTENT_BYTES",
        "int",
        51200,
        "Largest block content in bytes (UTF-8).",
        bounds=(1024, 1048576),
    ),
    _knob(
        "CTX_SEARCH_MAX_LIMIT",
        "int",
        50,
        "Largest `limit` a search or query may ask.",
        bounds=(1, 500),
    ),
    _knob(
        "CTX_LOG_LEVEL",
        "str",
        "INFO",
        "Log level of the ctx loggers.",
        parse=choice("debug", "info", "warning", "error"),
    ),
    _knob(
        "CTX_LLM_PROVIDER",
        "str",
        "none",
        "LLM for extraction, link typing, judging and synthesis; none = deterministic mode.",
        parse=choice("none", "openai", "ollama", "anthropic"),
    ),
    _knob(
        "CTX_LLM_BASE_URL",
        "url",
        "",
        "LLM endpoint; unset = the provider's public API (Ollama: http://127.0.0.1:11434).",
    ),
    _knob("CTX_LLM_MODEL", "str", "", "LLM model name; required when a provider is set."),
    _knob("CTX_LLM_API_KEY", "str", "", "LLM API key (Anthropic, hosted OpenAI).", secret=True),
    _knob(
        "CTX_LLM_TIMEOUT",
        "float",
        60.0,
        "Seconds an LLM call may take (per endpoint).",
        bounds=(1, 600),
    ),
    _knob(
        "CTX_LLM_FALLBACK_PROVIDER",
        "str",
        "none",
        "Second LLM, asked when the first cannot be reached.",
        parse=choice("none", "openai", "ollama", "anthropic"),
    ),
    _knob("CTX_LLM_FALLBACK_BASE_URL", "url", "", "Fallback LLM endpoint."),
    _knob("CTX_LLM_FALLBACK_MODEL", "str", "", "Fallback LLM model name."),
    _knob("CTX_LLM_FALLBACK_API_KEY", "str", "", "Fallback LLM API key.", secret=True),
    _knob(
        "CTX_LLM_LOG_BODIES",
        "bool",
        False,
        "Keep prompts and answers in the LLM call log (they hold tenants' knowledge).",
    ),
    _knob(
        "CTX_EMBED_PROVIDER",
        "str",
        "local",
        "Embedding provider: local (sentence-transformers), ollama, openai (/v1/embeddings), e5.",
        parse=choice("local", "ollama", "openai", "e5"),
    ),
    _knob("CTX_EMBED_BASE_URL", "url", "", "Remote embedding endpoint (ollama, openai)."),
    _knob(
        "CTX_EMBED_MODEL",
        "str",
        "",
        "Embedding model; unset = the packaged all-MiniLM-L6-v2 (local).",
    ),
    _knob("CTX_EMBED_API_KEY", "str", "", "Remote embedding API key.", secret=True),
    _knob(
        "CTX_EMBED_DIM",
        "int",
        384,
        "Embedding size; must match the provider (checked on every answer).",
        bounds=(1, 2000),
    ),
    _knob(
        "CTX_EMBED_TIMEOUT",
        "float",
        30.0,
        "Seconds a remote embedding call may take.",
        bounds=(0.1, 600),
    ),
    _knob(
        "CTX_RRF_W_SEMANTIC",
        "float",
        0.45,
        "RRF weight of the semantic arm.",
        bounds=(0, 1),
        live=True,
    ),
    _knob(
        "CTX_RRF_W_FTS_EN",
        "float",
        0.25,
        "RRF weight of English full text.",
        bounds=(0, 1),
        live=True,
    ),
    _knob(
        "CTX_RRF_W_FTS_DE",
        "float",
        0.20,
        "RRF weight of German full text.",
        bounds=(0, 1),
        live=True,
    ),
    _knob(
        "CTX_RRF_W_TITLE",
        "float",
        0.10,
        "RRF weight of the title trigram arm.",
        bounds=(0, 1),
        live=True,
    ),
    _knob("CTX_RRF_K", "int", 60, "The k of reciprocal rank fusion.", bounds=(1, 1000), live=True),
    _knob(
        "CTX_GRAVITY_CAP",
        "float",
        2.0,
        "Largest total score multiplier of temporal gravity.",
        bounds=(1, 10),
        live=True,
    ),
    _knob(
        "CTX_QUERY_STAGES",
        "list",
        ["gravity_cyclic", "gravity_linear", "supersedes"],
        "Retrieval stages after fusion, in order; remove one to switch it off.",
        live=True,
    ),
)

KNOBS_BY_NAME: Mapping[str, Knob] = {k.name: k for k in KNOBS}


def _check_bounds(knob: Knob, value: Any) -> str | None:
    if knob.bounds is None:
        return None
    low, high = knob.bounds
    if not low <= value <= high:
        return f"{knob.name}={value!r}: must be between {low:g} and {high:g}"
    return None


def load(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return every knob's effective value; raise ConfigError listing all malformed ones."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    findings: list[str] = []
    for knob in KNOBS:
        raw = env.get(knob.name)
        if raw is None or raw == "":
            values[knob.name] = knob.default
            continue
        try:
            value = knob.parse(raw)
        except ValueError as exc:
            shown = "***" if knob.secret else repr(raw)
            findings.append(f"{knob.name}={shown}: {exc}")
            continue
        problem = _check_bounds(knob, value)
        if problem:
            findings.append(problem)
        values[knob.name] = value
    if findings:
        raise ConfigError(findings)
    return values


def mask(value: Any) -> Any:
    """A secret's mask: URLs keep their shape but lose the password; other values vanish."""
    if not value:
        return ""
    text = str(value)
    if "://" in text:
        parts = urlsplit(text)
        if parts.password is None:
            return text
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return "***"


def masked(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values with every secret masked."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        knob = KNOBS_BY_NAME.get(name)
        out[name] = mask(value) if knob and knob.secret else value
    return out
