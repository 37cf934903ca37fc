"""Content-addressed publishing: the public payload of a profile, its canonical JSON, the
12-character hash of that JSON, and the refusal of payloads holding credentials.

Canonical JSON: keys sorted at every depth, no insignificant whitespace, UTF-8 (not ASCII
escapes), no NaN or infinity. The same logical profile always gives the same bytes, so the
same hash: the payload leaves out what changes without the profile changing (the version
number, timestamps, the signals behind each rule, the history).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from profiles.core.dimensions import METRICS
from profiles.core.profile import Profile

PUBLIC_FORMAT = "ctx.profile.public/1"
HASH_CHARS = 12
REFUSED_LEVEL = "credentials"


def canonical_json(value: Any) -> bytes:
    """The one byte form of a JSON value (see the module docstring)."""
    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode("utf-8")


def content_hash(value: Any) -> str:
    """The first 12 hex characters of the SHA-256 of the value's canonical JSON."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:HASH_CHARS]


def public_payload(profile: Profile) -> dict[str, Any]:
    """What a published profile shares: its rules, core style, metrics and public facts.
    Never the signals, the answer excerpts, the history, the interpretation hint or the
    facts marked private."""
    return {
        "format": PUBLIC_FORMAT,
        "slug": profile.slug,
        "name": profile.name,
        "context": profile.context,
        "template": profile.template,
        "core_style": profile.core_style,
        # Rounded: 0.1 + 0.2 and 0.3 are the same metric and must give the same hash.
        "metrics": {dim: round(profile.metrics.get(dim, 0.0), 3) for dim in METRICS},
        "sections": [
            {"title": title, "rules": [rule.text for rule in rules]}
            for title, rules in profile.sections()
        ],
        "facts": [{"key": f.key, "value": f.value} for f in profile.facts if not f.private],
    }


class DetectionLike(Protocol):
    """What ctx.sensitivity.detect returns: a level and the detector names that fired."""

    @property
    def level(self) -> str: ...

    @property
    def reasons(self) -> tuple[str, ...]: ...


Detect = Callable[[str], DetectionLike]


@dataclass(frozen=True)
class Finding:
    path: str  # where in the payload: "sections[1].rules[0]"
    level: str
    detectors: tuple[str, ...]


class PublishRefused(ValueError):
    """The payload holds credentials-level text; `findings` say where and which detectors
    fired (never the text itself)."""

    def __init__(self, findings: tuple[Finding, ...]) -> None:
        where = "; ".join(f"{f.path} ({', '.join(f.detectors)})" for f in findings)
        super().__init__(f"refused: credentials-level text in {where}")
        self.findings = findings
        self.reason = str(self)


def check_publishable(payload: Any, detect: Detect) -> tuple[Finding, ...]:
    """Every string of the payload (keys too) through `detect` (the server passes
    ctx.sensitivity.detect). Raises PublishRefused when any is credentials-level; returns the
    lower findings (personal data, say) for the caller to show."""
    findings = tuple(
        Finding(path, found.level, tuple(found.reasons))
        for path, text in strings(payload)
        if (found := detect(text)).level != "public"
    )
    refused = tuple(f for f in findings if f.level == REFUSED_LEVEL)
    if refused:
        raise PublishRefused(refused)
    return findings


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, text) for every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield path or "$", value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield f"{child} (key)", str(key)
            yield from strings(item, child)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from strings(item, f"{path}[{i}]")


@dataclass(frozen=True)
class Published:
    hash: str
    payload: dict[str, Any]
    body: bytes  # the canonical JSON that was hashed


def publish(profile: Profile, detect: Detect) -> Published:
    """The public payload, checked and hashed; raises PublishRefused."""
    payload = public_payload(profile)
    check_publishable(payload, detect)
    body = canonical_json(payload)
    return Published(hashlib.sha256(body).hexdigest()[:HASH_CHARS], payload, body)
