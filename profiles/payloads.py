"""Wire shapes of the profile operations, declared once: HTTP sends them in its envelope, MCP as
structured content (and derives the tools' output schemas from them)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic (MCP output schemas) needs it below 3.12

from profiles.core.dimensions import METRICS
from profiles.core.profile import rule_from_dict
from profiles.models import Profile, ProfileVersion


class ProfileSummary(TypedDict):
    slug: str
    name: str
    context: str
    template: str
    scope: str
    version: int
    updated_at: str
    active: bool
    pending: int  # signals not in a version yet


class RuleEntry(TypedDict):
    text: str
    section: str
    dimension: str
    direction: str
    aspect: str
    signals: int  # how many signals asked for it (0: from the template)
    since: int  # the version that added it


class FactEntry(TypedDict):
    key: str
    value: str
    private: bool


class ProfileDetail(ProfileSummary):
    core_style: str
    metrics: dict[str, float]
    rules: list[RuleEntry]
    facts: list[FactEntry]
    interpretation_hint: str
    prompt: str
    published: list[str]  # hashes answering at /p/<hash>


class ProfilesPayload(TypedDict):
    count: int
    active: str | None
    profiles: list[ProfileSummary]


class ProfilePayload(TypedDict):
    profile: ProfileDetail


class PreferencesPayload(TypedDict):
    profile: str
    name: str
    version: int
    updated_at: str
    source: str  # chosen (activated by this key) | fallback (most recently updated) | named
    pending: int
    prompt: str


class SignalPayload(TypedDict):
    action: str  # created | duplicate (this id was stored before)
    id: str
    type: str
    profile: str
    version: int  # the profile's version when the answer was sent
    pending: int  # signals of the profile not in a version yet


class SignalResult(TypedDict):
    id: str
    profile: str
    action: str


class SignalBatchPayload(TypedDict):
    count: int
    created: int
    results: list[SignalResult]


class InboxResult(TypedDict, total=False):
    name: str
    action: str  # stored | duplicate | rejected
    id: str
    profile: str
    reason: str


class InboxPayload(TypedDict):
    results: list[InboxResult]


class VersionEntry(TypedDict):
    version: int
    at: str
    summary: str
    signal_ids: list[str]
    change: dict[str, Any]


class VersionsPayload(TypedDict):
    profile: str
    count: int
    versions: list[VersionEntry]


class DiffPayload(TypedDict):
    profile: str
    from_version: int
    to_version: int
    diff: str  # unified diff of the two prompts
    changes: list[VersionEntry]  # the change records between them


class PublishFinding(TypedDict):
    path: str
    level: str
    detectors: list[str]


class PublishPayload(TypedDict):
    action: str  # published | unchanged
    hash: str
    url: str
    raw: str
    findings: list[PublishFinding]  # below credentials (personal data): shown, not refused


class ExportPayload(TypedDict):
    active: str | None
    profiles: list[str]
    signals: int  # how many signals signals.jsonl holds
    pending: int  # signals not in a version yet: the files do not show them
    files: dict[str, str]  # the folder's files, name → UTF-8 text


class ImportPayload(TypedDict):
    created: list[str]
    skipped: list[str]  # slugs the tenant already has (never overwritten)
    signals: int
    active: str | None  # became this key's active profile


class PublishedPayload(TypedDict):
    hash: str
    body: str  # the canonical JSON that was hashed
    payload: dict[str, Any]


def summary(row: Profile, *, active: str | None, pending: int) -> ProfileSummary:
    return {
        "slug": row.slug,
        "name": row.name,
        "context": row.context,
        "template": row.template,
        "scope": row.scope.name,
        "version": row.version,
        "updated_at": row.updated_at.isoformat(),
        "active": row.slug == active,
        "pending": pending,
    }


def _rule(data: dict[str, Any]) -> RuleEntry:
    rule = rule_from_dict(data)
    return {
        "text": rule.text,
        "section": rule.section,
        "dimension": rule.dimension,
        "direction": rule.direction,
        "aspect": rule.aspect,
        "signals": len(rule.signal_ids),
        "since": rule.since,
    }


def detail(
    row: Profile, *, active: str | None, pending: int, published: list[str]
) -> ProfileDetail:
    state = row.state
    metrics = state.get("metrics", {})
    return {
        **summary(row, active=active, pending=pending),
        "core_style": str(state.get("core_style", "")),
        "metrics": {dim: float(metrics.get(dim, 0.0)) for dim in METRICS},
        "rules": [_rule(r) for r in state.get("rules", [])],
        "facts": [
            {"key": f["key"], "value": f["value"], "private": bool(f.get("private", True))}
            for f in state.get("facts", [])
        ],
        "interpretation_hint": str(state.get("interpretation_hint", "")),
        "prompt": row.prompt,
        "published": published,
    }


def version_entry(row: ProfileVersion) -> VersionEntry:
    return {
        "version": row.version,
        "at": row.created_at.isoformat(),
        "summary": row.summary,
        "signal_ids": list(row.change.get("signal_ids", [])),
        "change": row.change,
    }
