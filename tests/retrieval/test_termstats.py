"""Stored document frequencies (retrieval/termstats.py): a large scope's full-text arms weigh
query terms by counts made in the background, and those counts follow the scope."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Scope
from retrieval import termstats
from retrieval.models import TermStat
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _order(cast: Cast) -> list[str]:
    status, body = cast.owner.post("/api/search", {"query": "zebra lynx", "limit": 20})
    assert status == 200
    titles = [r["title"] for r in body["results"]]
    return [t for t in titles if t in ("Zebra sighting", "Lynx sighting")]


def _store(cast: Cast, title: str, content: str, n: int = 1) -> None:
    blocks = [{"category": "n", "title": f"{title} {i}", "content": content} for i in range(n)]
    status, _ = cast.owner.post("/api/store/batch", {"blocks": blocks})
    assert status == 200


@pytest.fixture
def small_threshold(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counts kept for scopes of 5 blocks and for every lexeme (the defaults suit 20k)."""
    settings.CTX = {**settings.CTX, "CTX_FTS_STATS_FROM": 5}
    monkeypatch.setattr(termstats, "MIN_DF", 1)


def test_it_weighs_terms_by_the_stored_counts_until_they_are_counted_again(
    cast: Cast, small_threshold: None
) -> None:
    cast.owner.store(title="Zebra sighting", content="zebra seen")
    cast.owner.store(title="Lynx sighting", content="lynx seen")
    _store(cast, "tracks", "lynx tracks", n=3)
    assert _order(cast) == ["Zebra sighting", "Lynx sighting"]  # zebra is the rarer word
    scope = Scope.objects.get(name="acme:main")
    assert termstats.refresh_due() == [scope.id]
    assert TermStat.objects.get(scope=scope, config="english", lexeme="lynx").df == 4
    _store(cast, "herd", "zebra herd", n=6)  # now zebra (7) is commoner than lynx (4)
    # Between two counts the stored ones weigh the terms: zebra still counts as rare.
    assert _order(cast) == ["Zebra sighting", "Lynx sighting"]
    assert termstats.refresh_due() == [scope.id]  # 11 blocks: drifted more than 10%
    assert _order(cast) == ["Lynx sighting", "Zebra sighting"]
    assert termstats.refresh_due() == []  # nothing changed since
    stats = cast.owner.post("/api/manage", {"action": "stats"})[1]
    assert stats["stats"]["term_stats"]["acme:main"]["blocks"] == 11


def test_it_forgets_the_counts_of_a_scope_below_the_threshold(
    cast: Cast, small_threshold: None, settings: Any
) -> None:
    _store(cast, "note", "lynx tracks", n=5)
    termstats.refresh_due()
    assert TermStat.objects.filter(scope__name="acme:main").exists()
    settings.CTX = {**settings.CTX, "CTX_FTS_STATS_FROM": 100}
    assert termstats.refresh_due() == []
    assert not TermStat.objects.filter(scope__name="acme:main").exists()
    assert Scope.objects.get(name="acme:main").term_stats_at is None


@pytest.mark.django_db(transaction=True)
def test_a_scope_counted_elsewhere_right_now_is_left_to_that_count(
    cast: Cast, small_threshold: None
) -> None:
    """The scheduled count and another caller (a loader, an operator) met on one scope: both
    deleted the old rows, and the later commit failed on the unique lexeme. The second now
    steps aside while the first holds the scope, and counts once it is done."""
    import psycopg
    from django.db import connection

    _store(cast, "tracks", "lynx tracks", n=6)
    scope = Scope.objects.get(name="acme:main")
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    with psycopg.connect(**params) as other:  # another session, in its own transaction
        other.execute("SELECT pg_advisory_xact_lock(%s, %s)", [termstats._LOCK_SPACE, scope.id])
        assert termstats.refresh_due() == []
        assert not TermStat.objects.filter(scope=scope).exists()
        other.rollback()
    assert termstats.refresh_due() == [scope.id]
    assert TermStat.objects.get(scope=scope, config="english", lexeme="lynx").df == 6
