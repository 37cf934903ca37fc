"""`ctx pull`: the active prompt on stdout, for hooks and shell pipelines."""

from __future__ import annotations

import json

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_prints_the_prompt_before_and_after_a_signal(cli: Cli, live_cast: Cast) -> None:
    cli("profiles", "create", "coding", "--template", "coding", "--name", "Coding")
    before = cli("pull")
    assert before.returncode == 0, before.stderr
    assert before.stdout.startswith("# Coding — programming\n*Version 1 ·")
    assert "Avoid tables." not in before.stdout

    cli("signal", "stop using tables", "--type", "dislike")
    after = cli("pull")
    assert after.stdout.startswith("# Coding — programming\n*Version 2 ·")
    assert "- Avoid tables." in after.stdout
    assert after.stdout.endswith("\n") and not after.stdout.endswith("\n\n")


def test_it_pulls_a_named_profile(cli: Cli, live_cast: Cast) -> None:
    cli("profiles", "create", "coding", "--template", "coding")  # the name defaults to the slug
    cli("profiles", "create", "writing", "--template", "writing", "--name", "Writing")
    assert cli("pull", "--profile", "coding").stdout.startswith("# coding — programming")
    assert cli("pull", "--profile", "writing").stdout.startswith("# Writing")


def test_it_fails_plainly_without_any_profile(cli: Cli, live_cast: Cast) -> None:
    run = cli("pull")
    assert run.returncode == 1 and run.stdout == ""
    assert "No profile yet" in run.stderr


def test_it_prints_the_session_start_hook_json(cli: Cli, live_cast: Cast) -> None:
    cli("signal", "no emoji")
    run = cli("pull", "--hook", stdin=json.dumps({"hook_event_name": "SessionStart"}))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert out["additionalContext"].startswith("# Default") and "emoji" in out["additionalContext"]


def test_it_never_fails_a_hook(offline_cli: Cli) -> None:
    run = offline_cli("pull", "--hook", stdin="{}")
    assert run.returncode == 0 and run.stdout == "" and "ctx pull" in run.stderr


def test_it_puts_the_prompt_in_front_of_the_briefing(cli: Cli, live_cast: Cast) -> None:
    cli("signal", "no emoji")
    run = cli("brief", "--hook", "--preferences", stdin=json.dumps({"cwd": "/src/acme"}))
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# Default") and "## ctx briefing: acme" in context
    plain = cli("brief", "--hook", stdin=json.dumps({"cwd": "/src/acme"}))
    assert json.loads(plain.stdout)["hookSpecificOutput"]["additionalContext"].startswith("## ctx")
