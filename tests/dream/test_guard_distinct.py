"""The guard never hides distinct records: real embeddings through the HTTP API, with the
tenant's archive rule turned on (the strictest setting)."""

from __future__ import annotations

import random

import pytest

from dream.models import GuardFlag
from retrieval import indexing
from tests.api.settings_support import put
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

COMPANIES = ("Tyrell Corp", "Wallace Corp")


def _archive_rule_on(cast: Cast) -> None:
    status, body = put(cast.owner, "CTX_GUARD_ACTION", "archive", tenant="acme")
    assert status == 200, body


def _visible(cast: Cast, block_id: str) -> bool:
    return cast.owner.post("/api/manage", {"action": "get", "id": block_id})[0] == 200


def _embed_all() -> None:
    while indexing.embed_pending(limit=50):
        pass


def _invoice(n: int, rng: random.Random) -> str:
    due = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return (
        f"INV-2026-{1000 + n} from {COMPANIES[n % 2]}: amount {rng.randint(1000, 9999)} EUR, "
        f"due {due}"
    )


def test_it_never_archives_invoices_that_differ_in_number_amount_or_date(cast: Cast) -> None:
    _archive_rule_on(cast)
    rng = random.Random(7)
    ids = [
        cast.owner.store(category="invoices", title=f"Invoice {n}", content=_invoice(n, rng))["id"]
        for n in range(20)
    ]
    _embed_all()
    assert all(_visible(cast, i) for i in ids)
    assert not GuardFlag.objects.exclude(kind="recurrent").exists()
    found = cast.owner.post("/api/query", {"query": "invoice from Tyrell Corp", "limit": 20})[1]
    assert len(found["sources"]) == 20


def test_it_keeps_a_dated_series_as_recurrent(cast: Cast) -> None:
    _archive_rule_on(cast)
    days = ("2026-02-10", "2026-03-03", "2026-03-10")
    ids = [
        cast.owner.store(
            category="meetings",
            title=f"Weekly standup {day}",
            content=f"Weekly standup on {day}: the team synced on the release plan.",
        )["id"]
        for day in days
    ]
    _embed_all()
    assert all(_visible(cast, i) for i in ids)
    kinds = {(f.kind, f.status, f.block.archived) for f in GuardFlag.objects.all()}
    assert kinds == {("recurrent", "kept", False)}


def test_it_still_archives_a_true_copy_under_the_rule_and_keep_undoes_it(cast: Cast) -> None:
    _archive_rule_on(cast)
    text = "We run compose v2 in production, behind Traefik."
    cast.owner.store(category="infra", title="Docker", content=text)
    copy = cast.owner.store(category="ops", title="Docker", content=text)["id"]
    _embed_all()
    assert not _visible(cast, copy)
    flag = cast.owner.get("/api/guard", status="archived")[1]["flags"][0]
    assert flag["resolved_by"] == "rule: CTX_GUARD_ACTION=archive"
    cast.owner.post("/api/guard/resolve", {"id": flag["id"], "action": "keep"})
    assert _visible(cast, copy)


def test_it_does_not_hint_another_record_as_a_near_duplicate(cast: Cast) -> None:
    first = "INV-2026-1005 from Tyrell Corp: amount 7904 EUR, due 2026-07-21"
    cast.owner.store(category="invoices", title="Invoice 1005", content=first)
    _embed_all()
    second = "INV-2026-1007 from Tyrell Corp: amount 6488 EUR, due 2026-12-01"
    body = cast.owner.store(category="invoices", title="Invoice 1007", content=second)
    assert body["guard"] == {"checked": True, "near_duplicate": None}
