from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def _titles(payload: dict) -> list[str]:
    return [r["title"] for r in payload["results"]]


def test_it_lists_blocks_newest_first_a_page_at_a_time(cli: Cli, live_cast: Cast) -> None:
    for n in range(5):
        live_cast.owner.store(title=f"b{n}")
    first = cli("list", "--limit", "2").json()
    assert _titles(first) == ["b4", "b3"] and first["next_cursor"]
    second = cli("list", "--limit", "2", "--cursor", first["next_cursor"]).json()
    assert _titles(second) == ["b2", "b1"]
    every = cli("list", "--limit", "2", "--all").json()
    assert _titles(every) == ["b4", "b3", "b2", "b1", "b0"] and every["next_cursor"] is None


def test_it_sends_the_filters(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Docker", tags=["ops", "prod"])
    live_cast.owner.store(category="infra", title="Nginx", tags=["ops"], type="decision")
    live_cast.owner.store(category="food", title="Lunch", scope="acme:team")
    assert _titles(cli("list", "--category", "infra").json()) == ["Nginx", "Docker"]
    assert _titles(cli("list", "--tag", "ops", "--tag", "prod").json()) == ["Docker"]
    assert _titles(cli("list", "--type", "decision").json()) == ["Nginx"]
    assert _titles(cli("list", "--scope", "acme:team").json()) == ["Lunch"]
    assert cli("list", "--since", "2999-01-01").json()["results"] == []


def test_it_shows_ids_and_the_next_page_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    ids = [live_cast.owner.store(title=f"b{n}", content=f"text {n}")["id"] for n in range(3)]
    run = cli.tty("list", "--limit", "2", columns=80)
    assert run.returncode == 0, run.stderr
    assert ids[2] in run.stdout and ids[1] in run.stdout and ids[0] not in run.stdout
    assert "text 2" in run.stdout and "--cursor" in run.stdout


def test_it_shows_only_the_keys_blocks(cli: Cli, live_cast: Cast) -> None:
    live_cast.outsider.store(title="theirs")
    assert cli("list").json()["results"] == []
