from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli.conftest import Cli
from tests.conftest import Cast
from tests.fake_http import FakeServer, Reply, Seen


def test_it_returns_the_answer_contract(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    run = cli("query", "when do we deploy?", "--limit", "3", "--explain")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["mode"] == "retrieval" and body["answer"] is None
    assert body["confidence"] in {"confident", "low_confidence", "no_relevant_blocks_found"}
    # The note, and possibly the fact extracted from it ("The team deploys on Fridays.").
    titles = [s["title"] for s in body["sources"]]
    assert "Deploys" in titles and len(titles) <= 2
    assert set(body["sources"][0]) >= {"n", "id", "scope", "title", "score", "age_days"}
    assert "total" in body["timing_ms"]
    assert "Deploys" in cli.tty("query", "when do we deploy?").stdout


def test_it_rejects_a_bad_limit_before_sending(offline_cli: Cli) -> None:
    assert offline_cli("query", "x", "--limit", "zero").returncode == 2


def test_it_takes_an_unquoted_question(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    run = cli("query", "when", "do", "we", "deploy?")
    assert run.returncode == 0, run.stderr
    assert run.json()["query"] == "when do we deploy?"


def test_it_sends_the_min_score(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(title="Lunch", content="The ramen place has the best ramen broth.")
    live_cast.owner.store(title="Dinner", content="Pasta in a broth-based sauce.")
    ask = ("query", "ramen broth", "--no-synthesize")
    assert "Dinner" in [s["title"] for s in cli(*ask).json()["sources"]]
    run = cli(*ask, "--min-score", "0.9")
    assert run.returncode == 0, run.stderr
    assert [s["title"] for s in run.json()["sources"]] == ["Lunch"]
    assert cli(*ask, "--min-score", "-0.1").returncode == 2


def _chat(seen: Seen, number: int) -> Reply:
    answer = json.dumps({"known": True, "answer": "On Fridays [1]."})
    message = {"role": "assistant", "content": answer}
    return Reply(json={"model": "fake", "choices": [{"index": 0, "message": message}]})


@pytest.fixture
def llm(settings: Any) -> Iterator[FakeServer]:
    """The live server (in this process) with an OpenAI-compatible LLM."""
    with FakeServer(_chat) as server:
        settings.CTX = {
            **settings.CTX,
            "CTX_LLM_PROVIDER": "openai",
            "CTX_LLM_MODEL": "fake",
            "CTX_LLM_BASE_URL": server.url,
            "CTX_TRANSLATE_QUERIES": False,
        }
        yield server


def test_it_answers_by_default_when_the_server_has_an_llm(
    cli: Cli, live_cast: Cast, llm: FakeServer
) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    body = cli("query", "when do we deploy?").json()
    assert body["mode"] == "synthesis" and body["answer"] == "On Fridays [1]."
    assert len(llm.seen) == 1
    plain = cli("query", "when do we deploy?", "--no-synthesize").json()
    assert plain["mode"] == "retrieval" and plain["answer"] is None and len(llm.seen) == 1


def test_it_says_that_no_llm_is_configured_when_asked_to_synthesize(
    cli: Cli, live_cast: Cast
) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    run = cli("query", "when do we deploy?", "--synthesize")
    assert run.returncode == 0 and run.json()["mode"] == "retrieval"
    assert "no LLM is configured on the server" in run.stderr and "CTX_LLM_PROVIDER" in run.stderr
    assert cli("query", "when do we deploy?").stderr == ""  # not asked: nothing to say


def test_it_shows_a_preview_and_the_whole_id_on_an_80_column_terminal(
    cli: Cli, live_cast: Cast
) -> None:
    stored = live_cast.owner.store(
        scope="acme:team",
        category="infrastructure-decisions",
        title="How we deploy the services of the platform to production every week",
        content="We deploy on Fridays after the review, with compose v2 on every host.",
    )
    run = cli.tty("query", "when do we deploy?", columns=80)
    assert run.returncode == 0, run.stderr
    assert stored["id"] in run.stdout.splitlines()[2]  # one line, never cut
    assert "We deploy on Fridays after the review" in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) <= 80


def test_it_keeps_to_a_period(cli: Cli, live_cast: Cast) -> None:
    said = {"Old standup": "2025-01-05T09:00:00Z", "New standup": "2025-03-05T09:00:00Z"}
    for title, when in said.items():
        live_cast.owner.store(
            category="log", title=title, content=f"{title} notes.", source_time=when
        )
    ask = ("query", "standup notes", "--no-synthesize")
    titles = [s["title"] for s in cli(*ask, "--since", "2025-03-01").json()["sources"]]
    assert titles == ["New standup"]
    older = [s["title"] for s in cli(*ask, "--until", "2025-02-01").json()["sources"]]
    assert older == ["Old standup"]
    refused = cli(*ask, "--since", "2025-03-02", "--until", "2025-03-01")
    assert refused.returncode != 0 and "'since' is after 'until'" in refused.stderr
