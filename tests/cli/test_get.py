from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_shows_the_whole_block(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(
        category="infra", title="Docker", content="Use compose v2.", tags=["ops"], metadata={"a": 1}
    )
    block = cli("get", stored["id"]).json()["block"]
    assert block["content"] == "Use compose v2." and block["tags"] == ["ops"]
    assert block["metadata"] == {"a": 1} and block["title"] == "Docker"


def test_it_prints_the_content_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(category="infra", title="Docker [v2]", content="Use compose.")
    run = cli.tty("get", stored["id"])
    assert run.returncode == 0 and "Docker [v2]" in run.stdout and "Use compose." in run.stdout


def test_it_gives_the_same_not_found_for_foreign_and_missing_blocks(
    cli: Cli, live_cast: Cast
) -> None:
    foreign = live_cast.outsider.store(title="theirs")["id"]
    missing = "00000000-0000-0000-0000-000000000000"
    runs = [cli("get", foreign), cli("get", missing)]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr == "error: Block not found. (not_found)\n"


def test_it_shows_a_block_by_the_start_of_its_id(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(category="infra", title="Docker", content="Use compose v2.")
    run = cli("get", stored["id"][:8])
    assert run.returncode == 0, run.stderr
    assert run.json()["block"]["id"] == stored["id"]
