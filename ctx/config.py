"""Every CTX_* knob, declared once, parsed from the environment and validated as a whole.

Settings fail loudly: a malformed value stops the start, and every finding is listed at once
so an operator fixes them in one round trip. Django settings read the parsed values from here.
"""

from __future__ import annotations

import hashlib
import os
import warnings
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


def parse_hex_key(raw: str) -> str:
    """A 256-bit key as 64 hex characters (sealed secrets); the value is never echoed."""
    value = raw.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("expected 64 hex characters (32 random bytes)")
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


def knob(name: str, kind: str, default: Any, doc: str, **kw: Any) -> Knob:
    """One knob's declaration (`<app>/knob_specs.py`)."""
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


# Each app declares its own knobs in a pure-data module; this list is the one registry of them.
KNOB_MODULES = (
    "ctx.knob_specs",
    "ctx.oauth.knob_specs",
    "retrieval.knob_specs",
    "dream.knob_specs",
    "secrets.knob_specs",
    "profiles.knob_specs",
    "ingest.knob_specs",
    "memory.knob_specs",
    "refindex.knob_specs",
    "blobs.knob_specs",
)


def _collect() -> tuple[tuple[Knob, ...], dict[str, str]]:
    import importlib  # here: the modules import this one for Knob and knob()

    knobs: list[Knob] = []
    renamed: dict[str, str] = {}
    for module in KNOB_MODULES:
        declared = importlib.import_module(module)
        knobs.extend(declared.KNOBS)
        renamed.update(getattr(declared, "RENAMED", {}))
    names = [k.name for k in knobs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RuntimeError(f"knobs declared twice: {', '.join(duplicates)}")
    return tuple(knobs), renamed


KNOBS, RENAMED = _collect()
KNOBS_BY_NAME: Mapping[str, Knob] = {k.name: k for k in KNOBS}


def canonical(name: str) -> str:
    """The knob's current name: a renamed knob's old name maps to the new one (with a
    DeprecationWarning), any other name to itself."""
    new = RENAMED.get(name)
    if new is None:
        return name
    warnings.warn(f"{name} is now called {new}", DeprecationWarning, stacklevel=3)
    return new


def lookup(name: str) -> Knob | None:
    """The knob declared under `name` or renamed from it."""
    return KNOBS_BY_NAME.get(canonical(name))


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
        raw = env.get(knob.name) or _renamed_from(env, knob.name)
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


def _renamed_from(env: Mapping[str, str], name: str) -> str | None:
    """The value of a knob set under its old name (deprecated, still honoured)."""
    for old, new in RENAMED.items():
        if new == name and env.get(old):
            warnings.warn(f"{old} is now called {new}", DeprecationWarning, stacklevel=3)
            return env[old]
    return None


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


def fingerprint(value: Any) -> str:
    """What a log may say of a secret: whether it is set and, to compare two servers, a short
    hash of it. Never the value, never enough of a hash to test guesses cheaply offline."""
    if not value:
        return ""
    return "sha256:" + hashlib.sha256(str(value).encode()).hexdigest()[:12]


# Settings that hold URLs a person types: endpoints and the public origin.
URL_SETTINGS = (
    "CTX_PUBLIC_URL",
    "CTX_LLM_BASE_URL",
    "CTX_LLM_FALLBACK_BASE_URL",
    "CTX_EMBED_BASE_URL",
    "DATABASE_URL",
    "REDIS_URL",
)


def url_findings(values: Mapping[str, Any]) -> list[str]:
    """Tolerated but doubtful forms of the URL settings, one sentence each (pure)."""
    found: list[str] = []
    for name in URL_SETTINGS:
        raw = str(values.get(name) or "").strip()
        knob = KNOBS_BY_NAME.get(name)
        if not raw or knob is None:
            continue
        parts = urlsplit(raw)
        if not knob.secret and (parts.username or parts.password):
            found.append(
                f"{name} holds credentials inside the URL: they show wherever the setting "
                "is listed; put the key in its own setting (or a sealed secret) instead."
            )
        if knob.secret:
            continue  # the database and Redis URLs: their own schemes, credentials expected
        if parts.scheme not in ("http", "https"):
            found.append(f"{name} should start with http:// or https://.")
        if name == "CTX_PUBLIC_URL" and parts.path.strip("/"):
            found.append(f"{name} has a path: only its origin (scheme://host[:port]) is used.")
        elif raw.endswith("/"):
            found.append(f"{name} ends with '/': tolerated, the slash is dropped.")
    return found


def machine_time_zone() -> str:
    """The machine's IANA zone (TZ, /etc/timezone, /etc/localtime: tzlocal reads them as the
    C library does), UTC when none is known. A server in Tokyo reads "yesterday" in Tokyo."""
    import tzlocal  # here: only settings asks, once

    try:
        return tzlocal.get_localzone_name() or "UTC"
    except Exception:  # an unreadable or nonsensical local setting: UTC, never a failed start
        return "UTC"
