"""Writes of profiles: create, edit, activate, delete, record signals, import a folder,
publish. Reading signals and synthesizing versions is `profiles.processing` (a Celery task).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from django.db import IntegrityError, transaction
from django.utils import timezone

from ctx import sensitivity
from ctx.errors import Conflict, SensitivityBlocked, ValidationFailed
from ctx.principal import Principal
from ctx.services import writable_scope
from profiles import selectors
from profiles.core.folder import ProfileSet
from profiles.core.profile import Profile as CoreProfile
from profiles.core.profile import ProfileError, change_to_dict, profile_to_dict
from profiles.core.publish import (
    Finding,
    PublishRefused,
    canonical_json,
    check_publishable,
    content_hash,
    public_payload,
)
from profiles.core.render import render_prompt
from profiles.core.signals import Signal as CoreSignal
from profiles.core.synthesis import create_profile, set_fact_privacy
from profiles.core.templates import TEMPLATES
from profiles.models import (
    ActiveProfile,
    FactStatus,
    Profile,
    ProfileVersion,
    Publication,
    Signal,
    SignalStatus,
    UserFact,
)

log = logging.getLogger("ctx.profiles")

DEFAULT_SLUG, DEFAULT_NAME = "default", "Default"
SLUG_TAKEN = "A profile with this slug already exists."
# Words the interfaces use beside a slug (/api/profiles/export, profiles://list).
RESERVED_SLUGS = frozenset({"export", "import", "list"})


def _invalid(exc: ProfileError) -> ValidationFailed:
    return ValidationFailed(f"'{exc.field}' {exc.message}.", details={"field": exc.field})


def save_state(row: Profile, state: CoreProfile) -> None:
    """Copy a core profile into its row (state, prompt, version, names)."""
    row.state = profile_to_dict(state)
    row.prompt = render_prompt(state)
    row.version = state.version
    row.name, row.context, row.template = state.name, state.context, state.template
    row.updated_at = state.updated_at


def add_version(row: Profile, state: CoreProfile, change_dict: dict[str, object]) -> None:
    ProfileVersion.objects.create(
        profile=row,
        scope_id=row.scope_id,
        version=state.version,
        state=profile_to_dict(state),
        prompt=render_prompt(state),
        change=change_dict,
        summary=str(change_dict.get("summary", "")),
        created_at=state.updated_at,
    )


# --- profiles ---------------------------------------------------------------------------------


def profile_create(
    *,
    principal: Principal,
    slug: str,
    name: str,
    template: str = "general",
    context: str | None = None,
    hint: str = "",
    scope: str | None = None,
) -> Profile:
    """Version 1 from a starter template, in the named (default: home) writable scope."""
    scope_id = writable_scope(principal, scope)
    if slug in RESERVED_SLUGS:
        message = f"'slug' must not be {slug!r} (reserved)."
        raise ValidationFailed(message, details={"field": "slug"})
    if template not in TEMPLATES:
        known = ", ".join(TEMPLATES)
        raise ValidationFailed(f"'template' must be one of {known}.", details={"field": "template"})
    try:
        state = create_profile(slug, name, template, context=context, hint=hint, now=timezone.now())
    except ProfileError as exc:
        raise _invalid(exc) from None
    row = Profile(tenant_id=principal.tenant_id, scope_id=scope_id, slug=slug)
    save_state(row, state)
    try:
        with transaction.atomic():
            row.save()
            add_version(row, state, change_to_dict(state.history[0]))
    except IntegrityError:
        raise Conflict(SLUG_TAKEN) from None
    return row


def default_profile(principal: Principal) -> Profile:
    """The key's active profile, or a `default` one made from the general template (the first
    signal of a tenant needs somewhere to go)."""
    found, _ = selectors.active_profile(principal)
    if found is not None:
        return found
    try:
        return profile_create(principal=principal, slug=DEFAULT_SLUG, name=DEFAULT_NAME)
    except Conflict:  # made meanwhile, or exists in a scope this key cannot read
        return selectors.get_profile_for(principal, DEFAULT_SLUG)


@dataclass(frozen=True)
class ProfileEdit:
    name: str | None = None
    context: str | None = None
    interpretation_hint: str | None = None
    fact_privacy: Mapping[str, bool] | None = None


@transaction.atomic
def profile_update(*, principal: Principal, slug: str, edit: ProfileEdit) -> Profile:
    """Change the name, context, hint or the facts' privacy. No new version: these change
    what the prompt is called and what a publish shares, not what the user asked for."""
    row = selectors.get_profile_for(principal, slug, write=True)
    state = selectors.core_profile(row)
    try:
        state = replace(
            state,
            name=state.name if edit.name is None else edit.name,
            context=state.context if edit.context is None else edit.context,
            interpretation_hint=(
                state.interpretation_hint
                if edit.interpretation_hint is None
                else edit.interpretation_hint
            ),
            updated_at=timezone.now(),
        )
    except ProfileError as exc:
        raise _invalid(exc) from None
    for key, private in (edit.fact_privacy or {}).items():
        state = _fact_privacy(row, state, key, private)
    save_state(row, state)
    row.save()
    return row


def _fact_privacy(row: Profile, state: CoreProfile, key: str, private: bool) -> CoreProfile:
    if not any(f.key == key for f in state.facts):
        raise ValidationFailed(f"The profile states no fact '{key}'.", details={"field": key})
    row.facts.filter(key=key, status=FactStatus.CURRENT).update(private=private)
    return set_fact_privacy(state, key, private)


@transaction.atomic
def profile_delete(*, principal: Principal, slug: str) -> str:
    row = selectors.get_profile_for(principal, slug, write=True)
    row.delete()  # its versions, signals, facts, publications and key choices go with it
    return slug


@transaction.atomic
def profile_activate(*, principal: Principal, slug: str) -> Profile:
    """The profile this key pulls from now on; reading the profile is enough."""
    row = selectors.get_profile_for(principal, slug)
    ActiveProfile.objects.update_or_create(
        key_id=principal.key.pk, defaults={"profile": row, "scope_id": row.scope_id}
    )
    return row


# --- signals ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    signal: CoreSignal
    profile: Profile
    action: str  # created | duplicate


def _target(principal: Principal, slug: str, cache: dict[str, Profile]) -> Profile:
    """The profile a signal goes to (named, else the active one, else `default`), writable."""
    if slug not in cache:
        row = selectors.get_profile_for(principal, slug) if slug else default_profile(principal)
        cache[slug] = selectors.get_profile_for(principal, row.slug, write=True)
    return cache[slug]


def signals_record(*, principal: Principal, signals: Sequence[CoreSignal]) -> list[Recorded]:
    """Store the signals (a signal id already stored for its profile is a duplicate, stored
    once); their processing starts after the commit."""
    with transaction.atomic():
        targets: dict[str, Profile] = {}
        routed = [(s, _target(principal, s.profile, targets)) for s in signals]
        results = _store(principal, routed)
    from profiles import tasks  # here: tasks import processing, which imports this module

    for profile_id in {r.profile.pk for r in results if r.action == "created"}:
        transaction.on_commit(lambda pid=profile_id: tasks.enqueue(pid))  # type: ignore[misc]
    return results


def _store(principal: Principal, routed: list[tuple[CoreSignal, Profile]]) -> list[Recorded]:
    by_profile: dict[int, set[str]] = {}
    for signal, row in routed:
        by_profile.setdefault(row.pk, set()).add(signal.id)
    seen = {
        (pid, sid)
        for pid, sids in by_profile.items()
        for sid in Signal.objects.filter(profile_id=pid, sid__in=sids).values_list("sid", flat=True)
    }
    rows, results = [], []
    for signal, row in routed:
        fresh = (row.pk, signal.id) not in seen
        seen.add((row.pk, signal.id))  # a batch naming one id twice stores it once
        results.append(Recorded(signal, row, "created" if fresh else "duplicate"))
        if fresh:
            rows.append(_signal_row(principal, signal, row))
    Signal.objects.bulk_create(rows, ignore_conflicts=True)  # a concurrent twin: stored once
    return results


def _signal_row(
    principal: Principal, signal: CoreSignal, row: Profile, status: str = SignalStatus.PENDING
) -> Signal:
    return Signal(
        scope_id=row.scope_id,
        profile=row,
        sid=signal.id,
        type=signal.type,
        note=signal.note,
        tags=list(signal.tags),
        context=signal.context,
        source=signal.source,
        session=signal.session or "",
        created_at=signal.created_at,
        key_id=principal.key.pk,
        status=status,
    )


def new_signal_id() -> str:
    return str(uuid.uuid4())


# --- folder import ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    created: list[str]
    skipped: list[str]
    signals: int
    active: str | None


def profile_import(
    *, principal: Principal, folder: ProfileSet, scope: str | None = None
) -> Imported:
    """Create the folder's profiles with their version history and signals (as applied: the
    state already holds them). A slug the tenant already has is skipped, never overwritten."""
    scope_id = writable_scope(principal, scope)
    created: list[str] = []
    skipped: list[str] = []
    rows: dict[str, Profile] = {}
    with transaction.atomic():
        for state in folder.profiles:
            row = _import_one(principal, state, scope_id)
            (created if row else skipped).append(state.slug)
            if row is not None:
                rows[state.slug] = row
        count = _import_signals(principal, folder, rows)
        active = _import_active(principal, folder.active, rows)
    return Imported(created, skipped, count, active)


def _import_one(principal: Principal, state: CoreProfile, scope_id: int) -> Profile | None:
    if state.slug in RESERVED_SLUGS:
        return None
    row = Profile(tenant_id=principal.tenant_id, scope_id=scope_id, slug=state.slug)
    save_state(row, state)
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:
        return None
    _import_versions(row, state)
    UserFact.objects.bulk_create(
        UserFact(
            profile=row,
            scope_id=scope_id,
            key=f.key,
            value=f.value,
            private=f.private,
            status=FactStatus.CURRENT,
        )
        for f in state.facts
    )
    return row


def _import_versions(row: Profile, state: CoreProfile) -> None:
    """One version per history entry; only the last one's state is known (the folder keeps
    the current state, not every past one)."""
    changes = {c.version: c for c in state.history}
    for number, change in sorted(changes.items()):
        last = number == state.version
        ProfileVersion.objects.create(
            profile=row,
            scope_id=row.scope_id,
            version=number,
            state=profile_to_dict(state) if last else None,
            prompt=render_prompt(state) if last else "",
            change=change_to_dict(change),
            summary=change.summary,
            created_at=change.at,
        )
    if state.version not in changes:
        add_version(row, state, {"version": state.version, "summary": "Imported from a folder."})


def _import_signals(principal: Principal, folder: ProfileSet, rows: dict[str, Profile]) -> int:
    """Signals of imported profiles, as applied; a signal without a profile belongs to the
    folder's active profile."""
    batch = []
    for signal in folder.signals:
        row = rows.get(signal.profile or folder.active)
        if row is not None:
            batch.append(_signal_row(principal, signal, row, status=SignalStatus.APPLIED))
    Signal.objects.bulk_create(batch, ignore_conflicts=True)
    return len(batch)


def _import_active(principal: Principal, slug: str, rows: dict[str, Profile]) -> str | None:
    """The folder's active profile becomes the key's, unless the key already chose one."""
    if slug not in rows or ActiveProfile.objects.filter(key_id=principal.key.pk).exists():
        return None
    row = rows[slug]
    ActiveProfile.objects.create(key_id=principal.key.pk, profile=row, scope_id=row.scope_id)
    return slug


# --- publishing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Published:
    publication: Publication
    action: str  # published | unchanged
    findings: tuple[Finding, ...]


def _detect(text: str) -> sensitivity.Detection:
    return sensitivity.detect(text)


@transaction.atomic
def publish(*, principal: Principal, slug: str) -> Published:
    """Publish the profile's public payload under its content hash; the same logical profile
    gets the same hash. Refused (nothing published) when any text is credentials-level; lower
    findings (personal data) are returned for the caller to show."""
    row = selectors.get_profile_for(principal, slug, write=True)
    payload = public_payload(selectors.core_profile(row))
    try:
        findings = check_publishable(payload, _detect)
    except PublishRefused as exc:
        raise SensitivityBlocked(f"Not published: {exc.reason}.") from None
    digest = content_hash(payload)
    existing = row.publications.filter(hash=digest).first()
    if existing is not None:
        return Published(existing, "unchanged", findings)
    body = canonical_json(payload).decode("utf-8")
    made = Publication.objects.create(profile=row, scope_id=row.scope_id, hash=digest, body=body)
    return Published(made, "published", findings)


@transaction.atomic
def unpublish(*, principal: Principal, slug: str) -> list[str]:
    """Withdraw every publication of the profile; the hashes that stop answering."""
    row = selectors.get_profile_for(principal, slug, write=True)
    hashes = sorted(row.publications.values_list("hash", flat=True))
    row.publications.all().delete()
    return hashes
