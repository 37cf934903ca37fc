"""profiles.processing on the server: the LLM interpreter when one is configured (a fake
OpenAI-compatible server over real HTTP, through ctx.outbound), the rules when switched to
them, and the sweep that processes signals a lost task left waiting."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from profiles import processing
from profiles.models import Profile, Signal
from tests.fake_http import FakeServer, Reply, Seen
from tests.profiles.support import Apis

pytestmark = pytest.mark.django_db

READING = {
    "interpretations": [
        {
            "dimension": "format",
            "aspect": "tables",
            "direction": "-",
            "kind": "rule",
            "preference": "Never use tables.",
            "delta": 0,
            "confidence": 0.9,
            "reasoning": "The user disliked a table.",
        }
    ],
    "facts": [],
}


def _openai(seen: Seen, number: int) -> Reply:
    content = json.dumps(READING)
    choice = {"index": 0, "message": {"role": "assistant", "content": content}}
    return Reply(json={"model": "fake", "choices": [choice], "usage": {}})


def _llm(settings: Any, url: str, **more: Any) -> None:
    settings.CTX = {
        **settings.CTX,
        "CTX_LLM_PROVIDER": "openai",
        "CTX_LLM_BASE_URL": url,
        "CTX_LLM_MODEL": "fake",
        **more,
    }


def test_it_reads_signals_with_the_configured_llm(apis: Apis, settings: Any) -> None:
    owner = apis[0]
    owner.create("coding", template="coding", interpretation_hint="I review data pipelines.")
    with FakeServer(_openai) as server:
        _llm(settings, server.url)
        owner.signal("meh", profile="coding", context="| a | b |", id="s-llm")
    row = Signal.objects.get(sid="s-llm")
    assert (row.status, row.interpreter) == ("applied", "llm")
    assert row.interpretations.get().preference == "Never use tables."
    (request,) = server.seen
    sent = json.dumps(request.body["messages"])
    assert "meh" in sent and "I review data pipelines." in sent  # the signal and the hint
    assert Profile.objects.get(slug="coding").version == 2


def test_it_uses_the_rules_when_switched_to_them(apis: Apis, settings: Any) -> None:
    with FakeServer(_openai) as server:
        _llm(settings, server.url, CTX_PROFILES_INTERPRETER="rules")
        apis[0].signal("no tables please", id="s-rules")
    assert server.seen == []
    assert Signal.objects.get(sid="s-rules").interpreter == "rules"


def test_it_sweeps_signals_a_lost_task_left_waiting(apis: Apis) -> None:
    owner = apis[0]
    owner.create("coding")
    owner.api.post("/api/signals", {"type": "dislike", "note": "no emoji", "profile": "coding"})
    # Sent without running the commit callbacks: as if the broker had lost the task.
    assert Signal.objects.get().status == "pending"
    assert processing.sweep() == []  # just received: its task may still come
    Signal.objects.update(received_at=timezone.now() - timedelta(minutes=1))
    (profile_id,) = processing.sweep()
    assert Profile.objects.get(pk=profile_id).version == 2
    assert Signal.objects.get().status == "applied"
