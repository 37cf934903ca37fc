"""Synthesis: interpretations + facts + the starter template → the next version of a profile.

The rule library keeps one rule per preference (README: "How synthesis deduplicates"):
1. the same normalised text, or the same (dimension, aspect, direction) on a named aspect,
   or a near-duplicate (same dimension and direction, token overlap ≥ 0.6) reinforces the
   existing rule: its text stays, the new signal ids join it;
2. a rule that contradicts an existing one on the same dimension (the same aspect the other
   way, or another choice in an exclusive slot such as the answer language) replaces it,
   unless it is much less certain than the rule it would replace (then it is ignored);
3. anything else is added.
Metric adjustments ("decrease directness by 0.5") move a metric and add no rule; an
adjustment against a rule on the same metric removes that rule. Every other interpretation
on a metric dimension also nudges its metric (rules.NUDGE).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from profiles.core.dimensions import (
    EXCLUSIVE_SLOTS,
    METRIC_MAX,
    METRIC_MIN,
    METRICS,
    MULTI_VALUED_FACT_KEYS,
)
from profiles.core.interpretation import Interpretation, UserFact, clamp
from profiles.core.profile import (
    Change,
    FactChange,
    MetricMove,
    Profile,
    Replacement,
    Rule,
    RuleChange,
)
from profiles.core.render import core_style, render_prompt
from profiles.core.templates import Template, get_template

__all__ = ["create_profile", "render_prompt", "set_fact_privacy", "synthesize"]

NEAR_DUPLICATE = 0.6  # Jaccard overlap of content tokens
REPLACE_MARGIN = 0.25  # a contradiction this much less certain than the rule is ignored
MIN_CONFIDENCE = 0.3  # interpretations below this are not acted on
TEMPLATE_CONFIDENCE = 0.5  # a template's rules yield to any stated preference
_STOP = frozenset(
    {
        *("a", "an", "the", "to", "of", "and", "or", "in", "on", "for", "with", "be", "is"),
        *("are", "your", "you", "my", "it", "its", "that", "this", "as", "at", "by", "when"),
        *("where", "there", "please", "always"),
    }
)
_TOKEN = re.compile(r"[a-z0-9äöüß+#-]+")


def create_profile(
    slug: str,
    name: str,
    template: Template | str = "general",
    *,
    context: str | None = None,
    hint: str = "",
    now: datetime | None = None,
) -> Profile:
    """Version 1 of a profile: the template's metrics and rules, and a history entry."""
    starter = get_template(template) if isinstance(template, str) else template
    moment = now or datetime.now(UTC)
    rules = tuple(
        Rule(
            text=text,
            dimension=dim,
            aspect=aspect,
            direction=direction,
            since=1,
            confidence=TEMPLATE_CONFIDENCE,
        )
        for (dim, aspect, direction), text in zip(starter.rules, starter.rule_texts(), strict=True)
    )
    metrics = starter.starting_metrics()
    change = Change(
        version=1,
        at=moment,
        summary=f"Created from the {starter.key!r} template.",
        added=tuple(RuleChange(rule.text) for rule in rules),
    )
    return Profile(
        slug=slug,
        name=name,
        context=starter.context if context is None else context,
        template=starter.key,
        metrics=metrics,
        rules=rules,
        version=1,
        updated_at=moment,
        core_style=core_style(metrics, starter),
        interpretation_hint=hint,
        history=(change,),
    )


@dataclass
class _Work:
    """The mutable state of one synthesis; becomes a Profile and a Change at the end."""

    rules: list[Rule]
    metrics: dict[str, float]
    facts: dict[str, UserFact]
    version: int
    added: list[RuleChange] = field(default_factory=list)
    removed: list[RuleChange] = field(default_factory=list)
    replaced: list[Replacement] = field(default_factory=list)
    reinforced: list[RuleChange] = field(default_factory=list)
    ignored: list[RuleChange] = field(default_factory=list)
    moved: dict[str, list[str]] = field(default_factory=dict)  # dimension → signal ids
    fact_changes: list[FactChange] = field(default_factory=list)


def synthesize(
    profile: Profile,
    interpretations: Sequence[Interpretation],
    facts: Sequence[UserFact] = (),
    template: Template | str | None = None,
    *,
    now: datetime | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> tuple[Profile, Change]:
    """The next version and what changed. Interpretations apply in the order given (oldest
    signal first: a newer one replaces an older one). Nothing changed → the same profile and
    an empty change carrying the current version."""
    starter = _template_for(profile, template)
    moment = now or datetime.now(UTC)
    work = _Work(list(profile.rules), dict(profile.metrics), _facts(profile), profile.version + 1)
    for item in interpretations:
        if item.confidence >= min_confidence:
            _apply(work, item)
    for fact in facts:
        _merge_fact(work, fact)
    change = _change(work, profile, moment)
    if change.empty:
        return profile, replace(change, version=profile.version, summary="Nothing changed.")
    return _next(profile, work, change, starter, moment), change


def _template_for(profile: Profile, template: Template | str | None) -> Template:
    if template is None:
        return get_template(profile.template)
    return get_template(template) if isinstance(template, str) else template


def _facts(profile: Profile) -> dict[str, UserFact]:
    return {fact.key: fact for fact in profile.facts}


def _next(
    profile: Profile, work: _Work, change: Change, starter: Template, moment: datetime
) -> Profile:
    return replace(
        profile,
        rules=tuple(work.rules),
        metrics=work.metrics,
        facts=tuple(work.facts.values()),
        version=work.version,
        updated_at=moment,
        core_style=core_style(work.metrics, starter),
        history=(*profile.history, change),
    )


# --- rules ----------------------------------------------------------------------------------


def _apply(work: _Work, item: Interpretation) -> None:
    if item.is_metric:
        _move_metric(work, item)
    if item.adjustment:
        _drop_opposed(work, item)
        return
    _add_rule(work, _rule_from(item, work.version))


def _rule_from(item: Interpretation, version: int) -> Rule:
    ids = (item.signal_id,) if item.signal_id else ()
    return Rule(
        text=item.preference,
        dimension=item.dimension,
        direction=item.direction,
        aspect=item.aspect,
        signal_ids=ids,
        since=version,
        confidence=item.confidence,
    )


def _add_rule(work: _Work, new: Rule) -> None:
    for i, old in enumerate(work.rules):
        if duplicates(old, new):
            merged = _merge_ids(old.signal_ids, new.signal_ids)
            work.rules[i] = replace(
                old, signal_ids=merged, confidence=max(old.confidence, new.confidence)
            )
            if merged != old.signal_ids:
                work.reinforced.append(RuleChange(old.text, new.signal_ids))
            return
    for i, old in enumerate(work.rules):
        if contradicts(old, new):
            if new.confidence < old.confidence - REPLACE_MARGIN:
                work.ignored.append(RuleChange(new.text, new.signal_ids))
                return
            del work.rules[i]
            work.rules.append(new)
            if old.since == work.version:  # added and replaced in this synthesis: one add
                work.added = [c for c in work.added if c.text != old.text]
                work.added.append(RuleChange(new.text, new.signal_ids))
            else:
                work.replaced.append(Replacement(old.text, new.text, new.signal_ids))
            return
    work.rules.append(new)
    work.added.append(RuleChange(new.text, new.signal_ids))


def duplicates(old: Rule, new: Rule) -> bool:
    """Whether `new` asks for what `old` already says (see the module docstring)."""
    if normalise_text(old.text) == normalise_text(new.text):
        return True
    if old.dimension != new.dimension or old.direction != new.direction:
        return False
    if old.aspect and old.aspect == new.aspect:
        return True
    return overlap(old.text, new.text) >= NEAR_DUPLICATE


def contradicts(old: Rule, new: Rule) -> bool:
    """Whether `new` is the opposite of `old`, or another choice in the same exclusive slot."""
    if old.dimension != new.dimension or old.dimension == "other":
        return False
    if old.aspect == new.aspect:
        return old.direction != new.direction
    slot = EXCLUSIVE_SLOTS.get(old.dimension)
    both_set = old.direction == new.direction == "set"
    return bool(slot) and both_set and _in_slot(old) and _in_slot(new)


def _in_slot(rule: Rule) -> bool:
    if rule.dimension == "structure":
        return rule.aspect.endswith("_first")
    if rule.dimension == "language":
        return not rule.aspect.startswith("terms:")
    return True


def normalise_text(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' content tokens (stop words out, crude stems)."""
    left = {_stem(t) for t in _TOKEN.findall(a.lower()) if t not in _STOP}
    right = {_stem(t) for t in _TOKEN.findall(b.lower()) if t not in _STOP}
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _merge_ids(old: Iterable[str], new: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*old, *new]))


# --- metrics --------------------------------------------------------------------------------


def _move_metric(work: _Work, item: Interpretation) -> None:
    before = work.metrics.get(item.dimension, 0.0)
    if item.target is not None:
        after = item.target
    elif item.delta:
        after = before + item.delta
    else:
        return
    work.metrics[item.dimension] = round(clamp(after, METRIC_MIN, METRIC_MAX), 3)
    ids = work.moved.setdefault(item.dimension, [])
    if item.signal_id:
        ids.append(item.signal_id)


def _drop_opposed(work: _Work, item: Interpretation) -> None:
    """An adjustment towards + drops the metric's "-" rules (and the other way round); an
    absolute target ("set formality to 0.8") drops none."""
    sign = _sign(item)
    opposed = "-" if sign > 0 else "+" if sign < 0 else ""
    ids = (item.signal_id,) if item.signal_id else ()
    keep = []
    for rule in work.rules:
        if rule.dimension == item.dimension and not rule.aspect and rule.direction == opposed:
            work.removed.append(RuleChange(rule.text, ids))
        else:
            keep.append(rule)
    work.rules = keep


def _sign(item: Interpretation) -> int:
    if item.delta:
        return 1 if item.delta > 0 else -1
    return 0 if item.direction == "set" else 1 if item.direction == "+" else -1


# --- facts ----------------------------------------------------------------------------------


def _merge_fact(work: _Work, fact: UserFact) -> None:
    old = work.facts.get(fact.key)
    before = old.value if old else ""
    ids = (fact.signal_id,) if fact.signal_id else ()
    if not fact.value:
        if old is not None:
            del work.facts[fact.key]
            work.fact_changes.append(FactChange(fact.key, before, "", ids))
        return
    value = fact.value
    if old is not None and fact.key in MULTI_VALUED_FACT_KEYS:
        value = ", ".join(dict.fromkeys([*_items(old.value), *_items(fact.value)]))
    if value == before:
        return
    # A fact the user made private stays private when its value changes.
    private = fact.private or (old.private if old else False)
    work.facts[fact.key] = replace(fact, value=value, private=private)
    work.fact_changes.append(FactChange(fact.key, before, value, ids))


def _items(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def set_fact_privacy(profile: Profile, key: str, private: bool) -> Profile:
    """The same profile with one fact's privacy changed (no new version: the prompt is
    unchanged; only what a publish shares is)."""
    facts = tuple(replace(f, private=private) if f.key == key else f for f in profile.facts)
    return replace(profile, facts=facts)


# --- the change record ----------------------------------------------------------------------


def _change(work: _Work, profile: Profile, moment: datetime) -> Change:
    moves = tuple(
        MetricMove(dim, profile.metrics.get(dim, 0.0), work.metrics[dim], tuple(dict.fromkeys(ids)))
        for dim, ids in work.moved.items()
        if work.metrics[dim] != profile.metrics.get(dim, 0.0)
    )
    change = Change(
        version=work.version,
        at=moment,
        summary="",
        added=tuple(work.added),
        removed=tuple(work.removed),
        replaced=tuple(work.replaced),
        reinforced=tuple(work.reinforced),
        metrics=moves,
        facts=tuple(work.fact_changes),
        ignored=tuple(work.ignored),
    )
    return replace(change, summary=describe(change))


def describe(change: Change) -> str:
    """The change in plain words, one clause per kind of change."""
    parts: list[str] = []
    if change.added:
        parts.append("added " + "; ".join(f"'{c.text}'" for c in change.added))
    for r in change.replaced:
        parts.append(f"replaced '{r.old}' with '{r.new}'")
    if change.removed:
        parts.append("removed " + "; ".join(f"'{c.text}'" for c in change.removed))
    for m in change.metrics:
        parts.append(f"{m.dimension} {m.before:+.2f} → {m.after:+.2f}")
    for f in change.facts:
        parts.append(f"{f.key} forgotten" if not f.after else f"{f.key} set to '{f.after}'")
    if change.reinforced:
        parts.append(f"{len(change.reinforced)} rule(s) reinforced")
    if not parts:
        return "Nothing changed."
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def metrics_of(profile: Profile) -> dict[str, float]:
    """Every metric dimension's value (0 for one the profile never stored)."""
    return {dim: profile.metrics.get(dim, 0.0) for dim in METRICS}
