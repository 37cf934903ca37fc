"""A profile's state (rules, metrics, facts, version) and its history, with their JSON forms.

The JSON forms are what the folder contract writes (`<slug>.json`, `<slug>.history.jsonl`);
`from_dict` reads them back exactly (the round trip is tested).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from profiles.core.dimensions import METRICS, SECTION_OF, SECTIONS
from profiles.core.interpretation import UserFact
from profiles.core.signals import parse_time

PROFILE_FORMAT = "ctx.profile/1"
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
MAX_NAME_CHARS = 100
MAX_CONTEXT_CHARS = 200
MAX_HINT_CHARS = 1_000


class ProfileError(ValueError):
    """A profile field is invalid; `field` names it."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


def check_slug(slug: object) -> str:
    """The slug, when it is safe as a file name stem (it names files in the folder)."""
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise ProfileError("slug", "must be 1-63 lowercase letters, digits or dashes")
    return slug


@dataclass(frozen=True)
class Rule:
    """One entry of the rule library. `signal_ids` are the signals that asked for it (empty
    for a template's rule); `since` is the version that added it."""

    text: str
    dimension: str
    direction: str
    aspect: str = ""
    signal_ids: tuple[str, ...] = ()
    since: int = 1
    confidence: float = 0.5  # the strongest evidence for it; a weaker contradiction is ignored

    @property
    def section(self) -> str:
        return SECTION_OF.get(self.dimension, "Other")


@dataclass(frozen=True)
class RuleChange:
    text: str
    signal_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Replacement:
    old: str
    new: str
    signal_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricMove:
    dimension: str
    before: float
    after: float
    signal_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class FactChange:
    key: str
    before: str
    after: str
    signal_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Change:
    """What one synthesis changed, and which signals caused each part."""

    version: int
    at: datetime
    summary: str
    added: tuple[RuleChange, ...] = ()
    removed: tuple[RuleChange, ...] = ()
    replaced: tuple[Replacement, ...] = ()
    reinforced: tuple[RuleChange, ...] = ()
    metrics: tuple[MetricMove, ...] = ()
    facts: tuple[FactChange, ...] = ()
    # Contradictions too weak to replace a rule (a context-only guess against a stated rule).
    ignored: tuple[RuleChange, ...] = ()

    @property
    def signal_ids(self) -> tuple[str, ...]:
        """Every signal behind this change, in first-seen order."""
        parts: list[RuleChange | Replacement | MetricMove | FactChange] = [
            *self.added,
            *self.removed,
            *self.replaced,
            *self.reinforced,
            *self.metrics,
            *self.facts,
        ]
        return tuple(dict.fromkeys(i for part in parts for i in part.signal_ids))

    @property
    def empty(self) -> bool:
        parts = (self.added, self.removed, self.replaced, self.reinforced)
        return not any(parts) and not self.metrics and not self.facts


@dataclass(frozen=True)
class Profile:
    """A versioned instruction profile. Metrics are in [-1, 1] (dimensions.METRICS)."""

    slug: str
    name: str
    updated_at: datetime
    context: str = ""
    template: str = "general"
    metrics: dict[str, float] = field(default_factory=lambda: dict.fromkeys(METRICS, 0.0))
    rules: tuple[Rule, ...] = ()
    facts: tuple[UserFact, ...] = ()
    version: int = 1
    core_style: str = ""
    interpretation_hint: str = ""
    history: tuple[Change, ...] = ()

    def __post_init__(self) -> None:
        check_slug(self.slug)
        if not self.name.strip() or len(self.name) > MAX_NAME_CHARS:
            raise ProfileError("name", f"must be 1-{MAX_NAME_CHARS} characters")
        if len(self.context) > MAX_CONTEXT_CHARS:
            raise ProfileError("context", f"must be at most {MAX_CONTEXT_CHARS} characters")
        if len(self.interpretation_hint) > MAX_HINT_CHARS:
            raise ProfileError("interpretation_hint", f"at most {MAX_HINT_CHARS} characters")
        if self.version < 1:
            raise ProfileError("version", "must be at least 1")

    def sections(self) -> list[tuple[str, tuple[Rule, ...]]]:
        """The rule library grouped by section, in the prompt's order; empty ones left out."""
        out = []
        for name, _ in SECTIONS:
            rules = tuple(r for r in self.rules if r.section == name)
            if rules:
                out.append((name, rules))
        return out


# --- JSON forms ------------------------------------------------------------------------------


def rule_to_dict(rule: Rule) -> dict[str, Any]:
    return {
        "text": rule.text,
        "dimension": rule.dimension,
        "direction": rule.direction,
        "aspect": rule.aspect,
        "section": rule.section,
        "signal_ids": list(rule.signal_ids),
        "since": rule.since,
        "confidence": rule.confidence,
    }


def rule_from_dict(data: dict[str, Any]) -> Rule:
    return Rule(
        text=str(data["text"]),
        dimension=str(data["dimension"]),
        direction=str(data["direction"]),
        aspect=str(data.get("aspect", "")),
        signal_ids=tuple(data.get("signal_ids", ())),
        since=int(data.get("since", 1)),
        confidence=float(data.get("confidence", 0.5)),
    )


def fact_from_dict(data: dict[str, Any]) -> UserFact:
    return UserFact(
        key=str(data["key"]),
        value=str(data["value"]),
        private=bool(data.get("private", True)),
        signal_id=str(data.get("signal_id", "")),
    )


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """The profile without its history (the history has its own file)."""
    return {
        "format": PROFILE_FORMAT,
        "slug": profile.slug,
        "name": profile.name,
        "context": profile.context,
        "template": profile.template,
        "version": profile.version,
        "updated_at": profile.updated_at.isoformat(),
        "interpretation_hint": profile.interpretation_hint,
        "core_style": profile.core_style,
        "metrics": dict(sorted(profile.metrics.items())),
        "rules": [rule_to_dict(rule) for rule in profile.rules],
        "facts": [fact.to_dict() for fact in profile.facts],
    }


def profile_from_dict(data: dict[str, Any], history: tuple[Change, ...] = ()) -> Profile:
    if data.get("format") != PROFILE_FORMAT:
        raise ProfileError("format", f"expected {PROFILE_FORMAT}")
    return Profile(
        slug=check_slug(data["slug"]),
        name=str(data["name"]),
        context=str(data.get("context", "")),
        template=str(data.get("template", "general")),
        version=int(data["version"]),
        updated_at=parse_time(data["updated_at"], "updated_at"),
        interpretation_hint=str(data.get("interpretation_hint", "")),
        core_style=str(data.get("core_style", "")),
        metrics={str(k): float(v) for k, v in data.get("metrics", {}).items()},
        rules=tuple(rule_from_dict(r) for r in data.get("rules", [])),
        facts=tuple(fact_from_dict(f) for f in data.get("facts", [])),
        history=history,
    )


def change_to_dict(change: Change) -> dict[str, Any]:
    def ids(part: Any) -> list[str]:
        return list(part.signal_ids)

    return {
        "version": change.version,
        "at": change.at.isoformat(),
        "summary": change.summary,
        "signal_ids": list(change.signal_ids),
        "added": [{"text": c.text, "signal_ids": ids(c)} for c in change.added],
        "removed": [{"text": c.text, "signal_ids": ids(c)} for c in change.removed],
        "replaced": [{"old": c.old, "new": c.new, "signal_ids": ids(c)} for c in change.replaced],
        "reinforced": [{"text": c.text, "signal_ids": ids(c)} for c in change.reinforced],
        "metrics": [
            {"dimension": m.dimension, "before": m.before, "after": m.after, "signal_ids": ids(m)}
            for m in change.metrics
        ],
        "facts": [
            {"key": f.key, "before": f.before, "after": f.after, "signal_ids": ids(f)}
            for f in change.facts
        ],
        "ignored": [{"text": c.text, "signal_ids": ids(c)} for c in change.ignored],
    }


def change_from_dict(data: dict[str, Any]) -> Change:
    def ids(part: dict[str, Any]) -> tuple[str, ...]:
        return tuple(str(i) for i in part.get("signal_ids", ()))

    return Change(
        version=int(data["version"]),
        at=parse_time(data["at"], "at"),
        summary=str(data.get("summary", "")),
        added=tuple(RuleChange(c["text"], ids(c)) for c in data.get("added", [])),
        removed=tuple(RuleChange(c["text"], ids(c)) for c in data.get("removed", [])),
        replaced=tuple(Replacement(c["old"], c["new"], ids(c)) for c in data.get("replaced", [])),
        reinforced=tuple(RuleChange(c["text"], ids(c)) for c in data.get("reinforced", [])),
        metrics=tuple(
            MetricMove(m["dimension"], float(m["before"]), float(m["after"]), ids(m))
            for m in data.get("metrics", [])
        ),
        facts=tuple(
            FactChange(f["key"], str(f["before"]), str(f["after"]), ids(f))
            for f in data.get("facts", [])
        ),
        ignored=tuple(RuleChange(c["text"], ids(c)) for c in data.get("ignored", [])),
    )
