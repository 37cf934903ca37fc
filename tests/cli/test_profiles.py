"""`ctx profiles list|show|activate|create|delete|history|diff|publish|unpublish`."""

from __future__ import annotations

import hashlib

import httpx

from tests.cli.conftest import Cli
from tests.conftest import Cast


def _two(cli: Cli) -> None:
    cli("profiles", "create", "coding", "--template", "coding", "--name", "Coding")
    cli("profiles", "create", "writing", "--template", "writing", "--name", "Writing")


def test_it_lists_profiles_and_marks_the_active_one(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    listed = cli("profiles", "list").json()
    assert [p["slug"] for p in listed["profiles"]] == ["writing", "coding"]  # latest first
    assert listed["active"] == "writing"  # nothing chosen: the most recently updated
    screen = cli.tty("profiles", "list")
    assert "* writing" in screen.stdout and "coding" in screen.stdout


def test_it_activates_a_profile_for_this_key_only(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    run = cli("profiles", "activate", "coding")
    assert run.returncode == 0 and run.json()["active"] == "coding"
    assert cli("pull").stdout.startswith("# Coding")
    writer = cli("pull", CTX_KEY=live_cast.writer.key)  # another key: still the fallback
    assert writer.returncode == 1  # the writer's scope (acme:team) holds no profile


def test_it_shows_a_profile_with_its_rules(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    shown = cli("profiles", "show", "coding").json()["profile"]
    assert shown["template"] == "coding" and shown["metrics"]["verbosity"] == -0.3
    assert {r["text"] for r in shown["rules"]} == {
        "Put the code before the explanation.",
        "Skip pleasantries; start with the content.",
    }
    screen = cli.tty("profiles", "show", "coding")
    assert "Put the code before the explanation." in screen.stdout


def test_it_shows_the_history_and_the_diff(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    cli("signal", "no tables", "--profile", "coding", "--type", "dislike")
    cli("signal", "be a bit more formal", "--profile", "coding")
    screen = cli.tty("profiles", "history", "coding")
    assert "Added 'Avoid tables.'" in screen.stdout and "Formality" in screen.stdout
    diff = cli("profiles", "diff", "coding", "--from", "1", "--to", "3")
    assert diff.returncode == 0
    text = cli.tty("profiles", "diff", "coding", "--from", "1").stdout
    assert "+- Avoid tables." in text and "# v2: Added 'Avoid tables.'" in text
    assert "-*Version 1" in text and "+*Version 3" in text


def test_it_publishes_under_a_stable_hash(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    first = cli("profiles", "publish", "coding").json()
    again = cli("profiles", "publish", "coding").json()
    assert first["action"] == "published" and again["action"] == "unchanged"
    assert first["hash"] == again["hash"] and len(first["hash"]) == 12
    raw = httpx.get(first["url"].replace("/p/", "/api/raw/"))  # no key needed
    assert hashlib.sha256(raw.content).hexdigest()[:12] == first["hash"]
    page = httpx.get(first["url"])
    assert page.status_code == 200 and "Put the code before the explanation." in page.text
    assert cli("profiles", "unpublish", "coding").json()["hashes"] == [first["hash"]]
    assert httpx.get(first["url"]).status_code == 404


def test_it_refuses_to_publish_credentials(cli: Cli, live_cast: Cast) -> None:
    cli(
        "signal",
        "always export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY first",
    )
    run = cli("profiles", "publish", "default")
    assert run.returncode == 1
    assert "Not published: refused: credentials-level text in sections" in run.stderr
    assert "wJalrXUtnFEMI" not in run.stderr


def test_it_deletes_a_profile(cli: Cli, live_cast: Cast) -> None:
    _two(cli)
    assert cli("profiles", "delete", "writing").json()["slug"] == "writing"
    assert [p["slug"] for p in cli("profiles", "list").json()["profiles"]] == ["coding"]
    gone = cli("profiles", "show", "writing")
    assert gone.returncode == 1 and "Profile not found." in gone.stderr
