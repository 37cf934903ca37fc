"""`ctx history ID` (and `--restore N`) and `ctx changes --since …`."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.conftest import Cli
from tests.conftest import Cast


def _block(cast: Cast) -> str:
    stored = cast.owner.store(category="prefs", title="Editor", content="Vim", type="preference")
    return str(stored["id"])


def test_it_lists_versions_changed_through_the_cli_and_restores_one(
    cli: Cli, live_cast: Cast
) -> None:
    block = _block(live_cast)
    assert cli("update", block[:8], "--content", "Helix").returncode == 0
    body = cli("history", block[:8]).json()
    (old,) = body["versions"]
    assert old["content"] == "Vim" and old["replaced_via"] == "cli"
    restored = cli("history", block, "--restore", "1").json()
    assert restored["block"]["content"] == "Vim" and restored["current_version"] == 3
    again = cli("history", block).json()
    assert [v["content"] for v in again["versions"]] == ["Helix", "Vim"]


def test_it_prints_a_table_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    block = _block(live_cast)
    cli("update", block, "--content", "Helix")
    run = cli.tty("history", block)
    assert run.returncode == 0 and "version 2 by owner (cli)" in run.stdout
    assert "v1" in run.stdout and "Vim" in run.stdout


def test_it_answers_a_foreign_block_like_a_missing_one(cli: Cli, live_cast: Cast) -> None:
    foreign = live_cast.outsider.store(title="theirs")["id"]
    runs = [cli("history", foreign), cli("history", "00000000-0000-4000-8000-000000000000")]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr == "error: Block not found. (not_found)\n"


def test_it_says_what_changed_since_yesterday(cli: Cli, live_cast: Cast) -> None:
    _block(live_cast)
    live_cast.owner.store(category="m", title="db", content="We use Postgres.", type="decision")
    body = cli("changes", "--since", "yesterday").json()
    # The facts extracted from these notes may be listed too (memory forms by itself).
    assert {c["sentence"] for c in body["changes"]} >= {
        "New preference: Vim",
        "Decided: We use Postgres.",
    }
    run = cli.tty("changes", "--since", "yesterday")
    assert run.returncode == 0 and "Decided: We use Postgres." in run.stdout
    bad = cli("changes", "--since", "whenever")
    assert bad.returncode == 1 and "'since' must be" in bad.stderr


def test_it_briefs_the_budgeted_context_for_an_agent(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(
        category="p", title="tabs", content="The user uses tabs.", type="preference"
    )
    run = cli("brief", "--agent", "code", "--project", "atlas", "--max-tokens", "100")
    assert run.returncode == 0 and run.stdout.startswith(
        "# ctx context · agent code · project atlas"
    )
    assert "The user uses tabs." in run.stdout
    body = cli("brief", "--agent", "code", "--json").json()
    assert body["tokens"] <= body["max_tokens"] == 500 and body["lines"][0]["section"] == "profile"
    hook = {"hook_event_name": "SessionStart", "cwd": "/home/me/src/atlas"}
    run = cli("brief", "--hook", "--agent", "code", stdin=json.dumps(hook))
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# ctx context · agent code · project atlas")


def _extracted(api: Any, content: str) -> None:
    """A note and what extraction makes of it (a worker's job; run here, in the test)."""
    from memory import tasks
    from memory.sources import block_key

    block = api.store(category="notes", title=content[:40], content=content)
    tasks.extract_sources([block_key(block["id"])])


def test_it_lists_the_extracted_facts_with_their_evidence(cli: Cli, live_cast: Cast) -> None:
    _extracted(live_cast.owner, "We deploy on Thursdays after QA signs off.")
    (fact,) = cli("facts", "--attribute", "deploy_day").json()["facts"]
    assert (fact["statement"], fact["value"]) == ("The team deploys on Thursdays.", "Thursday")
    run = cli.tty("facts")
    assert run.returncode == 0 and "The team deploys on Thursdays." in run.stdout
    one = cli.tty("facts", fact["id"][:8])
    assert one.returncode == 0 and "We deploy on Thursdays" in one.stdout  # the quote


def test_it_answers_a_foreign_fact_like_a_missing_one(cli: Cli, live_cast: Cast) -> None:
    _extracted(live_cast.outsider, "We deploy on Mondays.")
    _, theirs = live_cast.outsider.get("/api/facts")
    foreign = theirs["facts"][0]["id"]
    runs = [cli("facts", foreign), cli("facts", "00000000-0000-4000-8000-000000000000")]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr == "error: Fact not found. (not_found)\n"
    assert cli("facts", "--attribute", "deploy_day").json()["facts"] == []
