from __future__ import annotations

import json
from pathlib import Path

from retrieval.embeddings import embed_queries
from retrieval.indexing import embed_blocks
from tests.cli.conftest import Cli
from tests.conftest import Cast


def _seed(cast: Cast) -> None:
    cast.owner.store(
        category="decisions",
        title="Rocket fuel",
        content="acme uses methane.",
        tags=["project:acme"],
    )
    cast.owner.store(category="misc", title="Untagged", content="acme has a cafeteria.")


def test_it_prints_exactly_the_session_start_hook_json(cli: Cli, live_cast: Cast) -> None:
    _seed(live_cast)
    hook_input = {
        "hook_event_name": "SessionStart",
        "cwd": "/home/me/src/acme",
        "source": "startup",
    }
    run = cli("brief", "--hook", stdin=json.dumps(hook_input))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert list(out) == ["hookSpecificOutput"]
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("## ctx briefing: acme")
    assert "### Rocket fuel" in context and "Untagged" not in context  # the tag wins
    assert "\n1 block in ctx tagged `project:acme`" in context  # not "1 blocks"


def test_it_answers_a_subagent_start_with_its_event_name(cli: Cli, live_cast: Cast) -> None:
    _seed(live_cast)
    hook_input = {"hook_event_name": "SubagentStart", "cwd": "/x/acme", "agent_type": "Explore"}
    out = json.loads(cli("brief", "--hook", stdin=json.dumps(hook_input)).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SubagentStart"


def test_it_briefs_what_persist_stored_for_the_project(cli: Cli, live_cast: Cast) -> None:
    # The seed's loop: the stored text never names the project, only its tag does.
    marker = "[PERSIST:decisions:Queue]\nWe use Redis streams.\n"
    assert cli("persist", "--project", "acme", stdin=marker).returncode == 0
    body = cli("brief", "--project", "acme", "--json").json()
    assert body["tagged"] is True and [r["title"] for r in body["results"]] == ["Queue"]
    assert "We use Redis streams." in body["markdown"]


def test_it_briefs_the_newest_tagged_blocks_first(cli: Cli, live_cast: Cast) -> None:
    for title in ("Old", "Middle", "New"):
        live_cast.owner.store(category="decisions", title=title, tags=["project:acme"])
    body = cli("brief", "--project", "acme", "--limit", "2", "--json").json()
    assert [r["title"] for r in body["results"]] == ["New", "Middle"]


def test_it_falls_back_to_blocks_close_in_meaning(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(
        category="misc", title="Engines", content="The rocket engine burns methane and oxygen."
    )
    embed_blocks([stored["id"]])  # the worker's job; no broker in these tests
    # The live server runs in this process: load the question embedder here, or its first
    # load (seconds on a busy machine) may outlast the CLI's timeout.
    embed_queries(["warm up"])
    run = cli("brief", "--project", "spaceflight", "--json")  # a word no block has
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["tagged"] is False and [r["title"] for r in body["results"]] == ["Engines"]
    assert 'closest in meaning to "spaceflight"' in body["markdown"]


def test_it_defaults_the_project_to_the_working_directory(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    _seed(live_cast)
    project_dir = tmp_path / "acme"
    project_dir.mkdir()
    run = cli("brief", cwd=project_dir)
    assert run.returncode == 0 and run.stdout.startswith("## ctx briefing: acme\n")
    assert "Rocket fuel" in run.stdout  # piped: the Markdown itself, not JSON


def test_it_says_when_nothing_is_known(cli: Cli) -> None:
    run = cli("brief", "--project", "unknown")
    assert "No knowledge stored for this project in ctx yet." in run.stdout


def test_it_renders_markdown_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    _seed(live_cast)
    run = cli.tty("brief", "--project", "acme")
    assert run.returncode == 0 and "Rocket fuel" in run.stdout and "###" not in run.stdout


def test_it_never_fails_a_session_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("brief", "--hook", stdin='{"hook_event_name": "SessionStart", "cwd": "/a"}')
    assert run.returncode == 0 and run.stdout == ""
    assert "cannot reach ctx" in run.stderr
    assert offline_cli("brief").returncode == 1  # outside a hook it is an error
