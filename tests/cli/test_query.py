from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_returns_the_answer_contract(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    run = cli("query", "when do we deploy?", "--limit", "3", "--explain")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["mode"] == "retrieval" and body["answer"] is None
    assert body["confidence"] in {"confident", "low_confidence", "no_relevant_blocks_found"}
    assert [s["title"] for s in body["sources"]] == ["Deploys"]
    assert set(body["sources"][0]) >= {"n", "id", "scope", "title", "score", "age_days"}
    assert "total" in body["timing_ms"]
    assert "Deploys" in cli.tty("query", "when do we deploy?").stdout


def test_it_rejects_a_bad_limit_before_sending(offline_cli: Cli) -> None:
    assert offline_cli("query", "x", "--limit", "zero").returncode == 2
