from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_lists_the_most_recent_changes(cli: Cli, live_cast: Cast) -> None:
    for n in range(4):
        live_cast.owner.store(title=f"b{n}", scope="acme:team" if n == 3 else "acme:main")
    run = cli("recent", "--limit", "2")
    assert run.returncode == 0, run.stderr
    assert [r["title"] for r in run.json()["results"]] == ["b3", "b2"]
    only = cli("recent", "--scope", "acme:main").json()["results"]
    assert [r["title"] for r in only] == ["b2", "b1", "b0"]


def test_it_draws_the_blocks_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(title="Docker", content="compose v2")
    run = cli.tty("recent")
    assert "Docker" in run.stdout and stored["id"] in run.stdout and "compose v2" in run.stdout
