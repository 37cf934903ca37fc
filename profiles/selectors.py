"""Reads of profiles. `get_profile_for` is the only way an API caller reaches a profile by slug:
a slug in a scope the caller cannot read (another tenant's) answers like a missing one."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from ctx.errors import NotFound
from ctx.principal import Principal
from ctx.selectors import row_for
from profiles.core.folder import ProfileSet
from profiles.core.profile import Change, change_from_dict, profile_from_dict
from profiles.core.profile import Profile as CoreProfile
from profiles.core.signals import Signal as CoreSignal
from profiles.models import (
    ActiveProfile,
    Profile,
    ProfileVersion,
    Publication,
    Signal,
    SignalStatus,
)

# One body for "missing" and "not yours": a stranger learns nothing from a 404.
NOT_FOUND_MESSAGE = "Profile not found."
NO_PROFILE_MESSAGE = "No profile yet: record a signal or create a profile first."
PUBLICATION_NOT_FOUND = "Publication not found."


def profiles_for(principal: Principal) -> QuerySet[Profile]:
    """The profiles in the principal's readable scopes, most recently updated first."""
    return (
        Profile.objects.readable_by(principal)
        .select_related("scope")
        .order_by("-updated_at", "slug")
    )


def get_profile_for(principal: Principal, slug: str, *, write: bool = False) -> Profile:
    """The readable profile named `slug`; NotFound otherwise. `write`: locked, and the fixed
    403 when the principal may only read its scope (ctx.selectors.row_for)."""
    qs = Profile.objects.readable_by(principal).select_related("scope").filter(slug=slug)
    return row_for(principal, qs, write=write, missing=NotFound(NOT_FOUND_MESSAGE))


def chosen_profile(principal: Principal) -> Profile | None:
    """The profile the key chose (`activate`), if it can still read it."""
    row = (
        ActiveProfile.objects.readable_by(principal)
        .filter(key_id=principal.key.pk, profile__scope_id__in=principal.read_scope_ids)
        .select_related("profile__scope")
        .first()
    )
    return row.profile if row is not None else None


def active_profile(principal: Principal) -> tuple[Profile | None, str]:
    """The key's active profile and why it is the one: `chosen`, or `fallback` (the tenant's
    most recently updated profile the key can read); (None, "none") without any profile."""
    chosen = chosen_profile(principal)
    if chosen is not None:
        return chosen, "chosen"
    latest = profiles_for(principal).first()
    return (latest, "fallback") if latest is not None else (None, "none")


def require_active(principal: Principal, slug: str | None) -> tuple[Profile, str]:
    """The named profile, or the active one; NotFound when there is none."""
    if slug:
        return get_profile_for(principal, slug), "named"
    profile, why = active_profile(principal)
    if profile is None:
        raise NotFound(NO_PROFILE_MESSAGE)
    return profile, why


def open_signals(profile: Profile) -> int:
    """Signals not yet in a version (pending or interpreted)."""
    return profile.signals.exclude(status=SignalStatus.APPLIED).count()


def open_counts(profile_ids: Iterable[int]) -> dict[int, int]:
    """Open signals per profile, in one query."""
    from django.db.models import Count  # local: only list paths count

    rows = (
        Signal.objects.filter(profile_id__in=list(profile_ids))
        .exclude(status=SignalStatus.APPLIED)
        .values("profile_id")
        .annotate(n=Count("id"))
    )
    return {row["profile_id"]: row["n"] for row in rows}


def versions_of(profile: Profile, limit: int | None = None) -> list[ProfileVersion]:
    """The profile's versions, newest first."""
    qs = profile.versions.order_by("-version")
    return list(qs[:limit] if limit else qs)


def version_of(profile: Profile, number: int) -> ProfileVersion:
    found = profile.versions.filter(version=number).first()
    if found is None:
        raise NotFound(f"{profile.slug} has no version {number}.")
    return found


def history_of(profile: Profile) -> tuple[Change, ...]:
    """The change records, oldest first (the folder's `<slug>.history.jsonl`)."""
    changes = profile.versions.order_by("version").values_list("change", flat=True)
    return tuple(change_from_dict(c) for c in changes)


def core_profile(profile: Profile, *, with_history: bool = False) -> CoreProfile:
    """The stored state as the core's Profile (with its history when asked)."""
    history = history_of(profile) if with_history else ()
    return profile_from_dict(profile.state, history)


def core_signal(row: Signal) -> CoreSignal:
    return CoreSignal(
        id=row.sid,
        type=row.type,  # type: ignore[arg-type]  # checked by the table's constraint
        created_at=row.created_at,
        note=row.note,
        tags=tuple(row.tags),
        context=row.context,
        source=row.source,
        session=row.session or None,
        profile=row.profile.slug,
    )


def profile_set(principal: Principal, signal_limit: int) -> ProfileSet:
    """Everything the folder holds for this key: its readable profiles with their histories,
    the active slug and the most recent `signal_limit` signals (oldest first)."""
    rows = list(profiles_for(principal).order_by("slug"))
    active, _ = active_profile(principal)
    profiles = tuple(core_profile(p, with_history=True) for p in rows)
    recent = (
        Signal.objects.filter(profile__in=rows)
        .select_related("profile")
        .order_by("-created_at", "-received_at")[:signal_limit]
    )
    signals = tuple(core_signal(s) for s in reversed(list(recent)))
    return ProfileSet(active.slug if active else "", profiles, signals)


def publication(content_hash: str) -> Publication:
    """A published payload by its hash, for anyone (no key): the same hash is the same bytes
    whoever published it."""
    found = Publication.objects.filter(hash=content_hash).order_by("created_at").first()
    if found is None:
        raise NotFound(PUBLICATION_NOT_FOUND)
    return found
