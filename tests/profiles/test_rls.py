"""Row-level security on the profile tables (migrations/rls/0005): under the runtime role a
query that forgets its tenant filter sees only the caller's rows; publications are public;
a key may record its choice of profile in a scope it only reads."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone

from ctx import selectors as ctx_selectors
from ctx.models import Scope
from profiles import processing, services
from profiles.core.signals import Signal as CoreSignal
from profiles.models import ActiveProfile, Profile
from rls import context as rls
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

SCOPED = [
    "profiles_profile",
    "profiles_profileversion",
    "profiles_signal",
    "profiles_interpretation",
    "profiles_userfact",
    "profiles_activeprofile",
]
PUBLIC = "profiles_publication"


def _principal(cast: Cast, which: str) -> Any:
    return ctx_selectors.principal_for_key(getattr(cast, which).key)


def _profile_rows(principal: Any, slug: str) -> str:
    """A row in every profile table, in the principal's home scope; the publication's hash."""
    row = services.profile_create(principal=principal, slug=slug, name=slug.title())
    note = CoreSignal(
        id=f"{slug}-1", type="dislike", created_at=timezone.now(), note="no tables; I'm an engineer"
    )
    services.signals_record(principal=principal, signals=[note])
    processing.profile_process(row.pk)  # as the worker would, after the commit
    services.profile_activate(principal=principal, slug=slug)
    return services.publish(principal=principal, slug=slug).publication.hash


@pytest.fixture
def tenants(cast: Cast) -> tuple[Cast, str, str]:
    acme = _profile_rows(_principal(cast, "owner"), "coding")
    globex = _profile_rows(_principal(cast, "outsider"), "theirs")
    return cast, acme, globex


def _scopes_seen(table: str) -> set[int]:
    with connection.cursor() as cur:
        cur.execute(f"SELECT scope_id FROM {table}")  # noqa: S608 - our table names
        return {row[0] for row in cur.fetchall()}


def _scope(name: str) -> int:
    return Scope.objects.get(name=name).pk


def test_it_shows_an_unfiltered_query_only_the_callers_profile_rows(
    tenants: tuple[Cast, str, str], runtime_role: None
) -> None:
    cast = tenants[0]
    acme, globex = _scope("acme:main"), _scope("globex:main")
    with rls.using(rls.for_principal(_principal(cast, "owner"))):
        for table in SCOPED:
            assert _scopes_seen(table) == {acme}, table
        assert _scopes_seen(PUBLIC) == {acme, globex}  # published: anyone reads it
    with rls.using(rls.NONE):
        for table in SCOPED:
            assert _scopes_seen(table) == set(), table
        assert _scopes_seen(PUBLIC) == {acme, globex}


def _refused(work: Any) -> bool:
    try:
        with transaction.atomic():
            work()
    except DatabaseError as exc:
        return "row-level security" in str(exc)
    return False


def test_it_lets_a_reader_choose_but_not_change_a_profile(
    tenants: tuple[Cast, str, str], runtime_role: None
) -> None:
    cast = tenants[0]
    with rls.using(rls.SYSTEM):
        globex = Scope.objects.get(name="globex:main").pk
    reader = _principal(cast, "reader")  # reads acme:main, writes nothing there
    with rls.using(rls.for_principal(reader)):
        services.profile_activate(principal=reader, slug="coding")  # the key's own choice
        assert ActiveProfile.objects.filter(key_id=reader.key.pk).count() == 1
        assert Profile.objects.filter(slug="coding").update(name="renamed") == 0
    with rls.using(rls.for_principal(_principal(cast, "owner"))):
        # Moving an own profile into another tenant's scope is a write there: refused.
        assert _refused(lambda: Profile.objects.filter(slug="coding").update(scope_id=globex))
        assert Profile.objects.filter(slug="theirs").update(name="renamed") == 0
    with rls.using(rls.SYSTEM):
        assert set(Profile.objects.values_list("name", flat=True)) == {"Coding", "Theirs"}


def test_it_serves_a_publication_to_anyone_under_the_runtime_role(
    tenants: tuple[Cast, str, str], runtime_role: None
) -> None:
    _, acme, _ = tenants
    raw = Client().get(f"/api/raw/{acme}")
    assert raw.status_code == 200 and b"Avoid tables." in raw.content
    status, body = tenants[0].outsider.get("/api/profiles/coding")
    assert (status, body["error"]["message"]) == (404, "Profile not found.")
