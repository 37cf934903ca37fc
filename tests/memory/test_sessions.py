"""Extraction of imported conversations: facts point at their session and message, a
re-import of the same messages extracts nothing again, appended messages are read."""

from __future__ import annotations

from typing import Any

from ctx.models import Block
from memory.models import Extraction, Provenance
from tests.conftest import Cast
from tests.ingest.support import batch, by_id, imported, message, session
from tests.memory.support import facts, values

TALK = [
    message(0, "I prefer Vim over VS Code.", external_id="m-a"),
    message(1, "Noted, Vim it is.", "assistant"),
    message(2, "We deploy on Tuesdays.", external_id="m-c"),
]


def test_it_cites_the_session_and_message_of_each_fact(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    job = imported(cast.owner, batch(session("s-1", TALK)), django_capture_on_commit_callbacks)
    sid = by_id(job)["s-1"]["id"]
    found = {f["attribute"]: f for f in facts(cast.owner)}
    (src,) = found["deploy_day"]["sources"]
    assert (src["source"], src["session_id"], src["message_index"]) == (f"session:{sid}", sid, 2)
    assert (src["message_id"], src["quote"]) == ("m-c", "We deploy on Tuesdays")
    assert src["said_at"] == found["deploy_day"]["said_at"] == "2026-03-01T10:02:00+00:00"
    block = Block.objects.get(pk=found["preferred_editor"]["id"])
    assert (block.source_session, block.scope.name) == ("claude-code:s-1", "acme:main")


def test_it_reads_only_what_changed_on_a_reimport(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    imported(cast.owner, batch(session("s-1", TALK)), capture)
    run = Extraction.objects.get()
    rows = sorted(Provenance.objects.values_list("pk", flat=True))
    imported(cast.owner, batch(session("s-1", TALK)), capture)
    assert Extraction.objects.get().ran_at == run.ran_at
    assert sorted(Provenance.objects.values_list("pk", flat=True)) == rows
    more = [*TALK, message(3, "I work at Acme Corp.")]
    imported(cast.owner, batch(session("s-1", more)), capture)
    assert values(cast.owner)["user.employer"] == "Acme Corp"
    assert Extraction.objects.get().counts["units"] == 4
