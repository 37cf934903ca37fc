"""Dream's LLM link typing never sends a note above CTX_LLM_TRUST; the rules type it instead."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from dream.cycle import run_cycles
from dream.models import Link
from tests.conftest import Cast
from tests.dream.conftest import cos_mix, put, settings_ctx
from tests.fake_http import FakeServer, Reply

pytestmark = pytest.mark.django_db

AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
GARBAGE = Reply(json={"choices": [{"message": {"content": "no json here"}}], "model": "m"})


def _seed() -> None:
    put("acme:main", "Alpha", f"alpha text with the key {AWS}", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))


def test_it_types_with_rules_rather_than_send_a_credentials_note(cast: Cast, settings: Any) -> None:
    _seed()
    with FakeServer(lambda s, n: GARBAGE) as server:
        settings_ctx(
            settings, CTX_LLM_PROVIDER="openai", CTX_LLM_MODEL="m", CTX_LLM_BASE_URL=server.url
        )
        summary = run_cycles(worker="w")
    assert summary.cycles == 2 and summary.outcomes.get("error", 0) == 0
    assert server.seen == []  # neither cycle sent anything: each would have shown the key
    assert Link.objects.get().evidence["typer"] == "rules"


def test_it_asks_the_llm_when_it_is_trusted_with_credentials(cast: Cast, settings: Any) -> None:
    _seed()
    with FakeServer(lambda s, n: GARBAGE) as server:
        settings_ctx(
            settings,
            CTX_LLM_PROVIDER="openai",
            CTX_LLM_MODEL="m",
            CTX_LLM_BASE_URL=server.url,
            CTX_LLM_TRUST="credentials",
        )
        run_cycles(worker="w")
    assert len(server.seen) == 2  # the control: the fake does receive trusted notes


def test_it_respects_a_level_set_by_hand_on_harmless_text(cast: Cast, settings: Any) -> None:
    alpha = put("acme:main", "Alpha", "alpha text", cos_mix(1.0))
    put("acme:main", "Bravo", "bravo text", cos_mix(0.9))
    Block.objects.filter(pk=alpha.pk).update(sensitivity="personal")  # the detector saw nothing
    with FakeServer(lambda s, n: GARBAGE) as server:
        settings_ctx(
            settings, CTX_LLM_PROVIDER="openai", CTX_LLM_MODEL="m", CTX_LLM_BASE_URL=server.url
        )
        run_cycles(worker="w")
    assert server.seen == []


def test_it_does_not_count_a_block_above_the_embedders_trust_as_awaiting(
    cast: Cast, settings: Any
) -> None:
    settings_ctx(settings, CTX_EMBED_PROVIDER="openai", CTX_EMBED_MODEL="m")  # trust: internal
    put("acme:main", "Key", f"the key {AWS}", [], embed=False)  # stays lexical-only
    put("acme:main", "Pending", "no vector yet", [], embed=False)
    queue = cast.owner.get("/api/dream/stats")[1]["queue"]
    assert queue["awaiting_embedding"] == 1
