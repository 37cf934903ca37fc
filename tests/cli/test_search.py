from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def _titles(run_json: dict) -> list[str]:
    return [r["title"] for r in run_json["results"]]


def test_it_returns_the_servers_results_as_json(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deployed the servers.")
    live_cast.owner.store(category="food", title="Lunch", content="Pasta with tomatoes.")
    run = cli("search", "deploying server")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert _titles(body) == ["Deploys"]
    assert set(body["results"][0]) >= {"id", "scope", "category", "title", "preview", "score"}


def test_it_sends_the_filters(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="a", title="one", content="alpha topic", tags=["x", "y"])
    live_cast.owner.store(
        category="b", title="two", content="alpha topic", tags=["x"], type="decision"
    )
    live_cast.owner.store(scope="acme:team", category="a", title="three", content="alpha topic")
    assert _titles(cli("search", "alpha", "--category", "b").json()) == ["two"]
    assert _titles(cli("search", "alpha", "--tag", "x,y").json()) == ["one"]
    assert _titles(cli("search", "alpha", "--type", "decision").json()) == ["two"]
    assert _titles(cli("search", "alpha", "--scope", "acme:team").json()) == ["three"]
    assert len(cli("search", "alpha", "--limit", "1").json()["results"]) == 1


def test_it_draws_a_table_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(category="infra", title="Deploys", content="deployed servers")
    run = cli.tty("search", "deploy")
    assert run.returncode == 0
    assert "Deploys" in run.stdout and stored["id"] in run.stdout
    assert '"results"' not in run.stdout


def test_it_says_no_results_on_a_terminal(cli: Cli) -> None:
    assert "no results" in cli.tty("search", "nothing").stdout


def test_it_never_shows_another_tenants_blocks(cli: Cli, live_cast: Cast) -> None:
    live_cast.outsider.store(title="globex plan", content="rockets")
    assert cli("search", "rockets").json()["results"] == []


def test_it_takes_an_unquoted_query_of_several_words(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="We deployed the servers.")
    assert _titles(cli("search", "deploying", "servers").json()) == ["Deploys"]


def test_it_reads_a_first_word_naming_a_category_as_the_category(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Deploys", content="compose in production")
    live_cast.owner.store(category="food", title="Canteen", content="compose a menu")
    assert _titles(cli("search", "infra", "compose").json()) == ["Deploys"]
    assert _titles(cli("search", "compose", "menu").json())[0] == "Canteen"  # no category


def test_it_browses_a_category_without_a_query(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="Docker", content="compose")
    live_cast.owner.store(category="infra", title="Nginx", content="proxy")
    live_cast.owner.store(category="food", title="Lunch", content="pasta")
    assert _titles(cli("search", "infra").json()) == ["Nginx", "Docker"]
    assert _titles(cli("search").json()) == ["Lunch", "Nginx", "Docker"]
    assert _titles(cli("search", "--category", "food").json()) == ["Lunch"]


def test_it_sends_the_min_score(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(title="Lunch", content="The ramen place has the best ramen broth.")
    live_cast.owner.store(title="Dinner", content="Pasta in a broth-based sauce.")
    assert _titles(cli("search", "ramen", "broth").json()) == ["Lunch", "Dinner"]
    run = cli("search", "ramen", "broth", "--min-score", "0.5")
    assert run.returncode == 0, run.stderr
    assert _titles(run.json()) == ["Lunch"] and run.json()["results"][0]["score"] == 1.0
    bad = cli("search", "ramen", "--min-score", "1.01")
    assert bad.returncode == 2 and "between 0 and 1" in bad.stderr
