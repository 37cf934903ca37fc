"""`ctx signal`: feedback on an answer becomes the next version of the active profile."""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_turns_three_signals_into_versions_of_the_profile(cli: Cli, live_cast: Cast) -> None:
    first = cli("signal", "no bullet lists please", "--type", "dislike", "--tag", "style")
    assert first.returncode == 0, first.stderr
    assert first.json()["action"] == "created" and first.json()["profile"] == "default"
    assert cli("signal", "always show the command first").returncode == 0
    assert cli("signal", "--tag", "no-emoji").returncode == 0

    history = cli("profiles", "history", "default").json()
    summaries = [v["summary"] for v in history["versions"]]
    assert [v["version"] for v in history["versions"]] == [4, 3, 2, 1]
    assert "Avoid bullet lists" in summaries[2]
    assert "command" in summaries[1].lower() and "emoji" in summaries[0].lower()
    prompt = cli("pull").stdout
    for rule in ("Avoid bullet lists.", "emoji"):
        assert rule in prompt


def test_it_says_on_a_terminal_what_was_recorded(cli: Cli, live_cast: Cast) -> None:
    run = cli.tty("signal", "too long", "--type", "dislike")
    assert run.returncode == 0, run.stderr
    assert "recorded dislike signal for profile default" in run.stdout


def test_it_sends_the_answer_excerpt_from_stdin(cli: Cli, live_cast: Cast) -> None:
    answer = "Great question!!! 🚀🚀🚀 Here is everything you never asked for. 🎉"
    run = cli("signal", "--type", "dislike", "--context", "-", stdin=answer)
    assert run.returncode == 0, run.stderr
    assert "emoji" in cli("pull").stdout.lower()


def test_it_refuses_a_signal_over_the_bounds_with_the_servers_413(
    cli: Cli, live_cast: Cast
) -> None:
    run = cli("signal", "x" * 2001)
    assert run.returncode == 1
    assert "'note' is longer than 2000 characters" in run.stderr
    assert cli("profiles", "list").json()["profiles"] == []  # nothing stored, nothing made


def test_it_needs_something_to_say(cli: Cli, live_cast: Cast) -> None:
    run = cli("signal")
    assert run.returncode == 2 and "say something" in run.stderr


def test_it_refuses_a_read_only_key(cli: Cli, live_cast: Cast) -> None:
    cli("signal", "be terser")  # the owner's signal makes the default profile
    run = cli("signal", "be warmer", CTX_KEY=live_cast.reader.key)
    assert run.returncode == 1 and "cannot write" in run.stderr
