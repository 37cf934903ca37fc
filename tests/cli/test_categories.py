from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_lists_categories_with_counts(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="a")
    live_cast.owner.store(category="infra", title="b")
    live_cast.owner.store(category="food", title="c")
    live_cast.outsider.store(category="secret", title="d")
    assert cli("categories").json()["categories"] == [
        {"category": "infra", "count": 2},
        {"category": "food", "count": 1},
    ]
    run = cli.tty("categories")
    assert "infra" in run.stdout and "secret" not in run.stdout


def test_it_filters_by_scope(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(category="infra", title="a")
    live_cast.owner.store(scope="acme:team", category="team", title="b")
    body = cli("categories", "--scope", "acme:team").json()
    assert body["categories"] == [{"category": "team", "count": 1}]
