from __future__ import annotations

import json
from pathlib import Path

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


def test_it_answers_a_subagent_start_with_its_event_name(cli: Cli, live_cast: Cast) -> None:
    _seed(live_cast)
    hook_input = {"hook_event_name": "SubagentStart", "cwd": "/x/acme", "agent_type": "Explore"}
    out = json.loads(cli("brief", "--hook", stdin=json.dumps(hook_input)).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SubagentStart"


def test_it_falls_back_to_untagged_blocks(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="misc", title="Untagged", content="globex is a rival of acme.")
    run = cli("brief", "--project", "globex", "--json")
    body = run.json()
    assert body["tagged"] is False and [r["title"] for r in body["results"]] == ["Untagged"]
    assert 'matching "globex"' in body["markdown"]


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
