"""`ctx digest`."""

from __future__ import annotations

from ctx.models import Block
from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_builds_the_topic_map_of_the_home_scope(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    run = cli("digest")
    assert run.returncode == 0, run.stderr
    body = run.json()
    # The note and whatever memory extracted from it (a fact block in the same scope).
    live = Block.objects.filter(scope__name="acme:main", archived=False).exclude(type="digest")
    assert body["action"] == "created" and body["blocks"] == live.count() >= 1
    digest = Block.objects.get(pk=body["id"])
    assert digest.scope.name == "acme:main" and digest.type == "digest"
    screen = cli.tty("digest").stdout
    assert screen.startswith("digest ") and body["id"] in screen
    assert f"{body['blocks']} blocks" in screen


def test_it_says_when_there_is_nothing_to_digest(cli: Cli) -> None:
    run = cli.tty("digest", "--scope", "acme:team")
    assert run.returncode == 0 and "nothing to digest" in run.stdout


def test_it_refuses_a_scope_the_key_cannot_write(cli: Cli, live_cast: Cast) -> None:
    run = cli("digest", "--scope", "globex:main")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("error: ") and "(forbidden)" in run.stderr
