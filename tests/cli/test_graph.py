"""`ctx graph <id>`."""

from __future__ import annotations

import pytest

from dream.services import LinkInput, link_upsert
from tests.cli.conftest import Cli
from tests.conftest import Cast


@pytest.fixture
def chain(live_cast: Cast) -> dict[str, str]:
    """root - a (0.9 factual) - b (0.6 causal)."""
    ids = {
        name: live_cast.owner.store(title=name, content=f"{name} text")["id"]
        for name in ("root", "a", "b")
    }
    link_upsert(LinkInput(ids["root"], ids["a"], "factual", 0.9))
    link_upsert(LinkInput(ids["a"], ids["b"], "causal", 0.6))
    return ids


def test_it_prints_nodes_and_edges(cli: Cli, chain: dict[str, str]) -> None:
    body = cli("graph", chain["root"], "--hops", "2").json()
    assert {n["title"]: n["hop"] for n in body["nodes"]} == {"root": 0, "a": 1, "b": 2}
    assert len(body["edges"]) == 2 and body["truncated"] is False
    screen = cli.tty("graph", chain["root"], "--hops", "2").stdout
    assert "nodes" in screen and "edges" in screen and "causal" in screen and "0.60" in screen
    assert "links" in screen


def test_it_passes_the_filters(cli: Cli, chain: dict[str, str]) -> None:
    strong = cli("graph", chain["root"], "--hops", "2", "--min-confidence", "0.7").json()
    assert {n["title"] for n in strong["nodes"]} == {"root", "a"}
    factual = cli("graph", chain["a"], "--class", "causal").json()
    assert [e[2] for e in factual["edges"]] == ["causal"]
    both = cli("graph", chain["a"], "--class", "causal,factual", "--per-node-cap", "1").json()
    assert [e[2] for e in both["edges"]] == ["factual"]  # a's strongest link only
    none = cli("graph", chain["root"], "--category", "nothing-here", "--edge-limit", "5").json()
    assert [n["title"] for n in none["nodes"]] == ["root"]
    later = cli("graph", chain["root"], "--created-after", "2999-01-01").json()
    assert [n["title"] for n in later["nodes"]] == ["root"]
    capped = cli("graph", chain["root"], "--hops", "2", "--limit", "2").json()
    assert len(capped["nodes"]) == 2 and capped["truncated"] is True


def test_it_gives_the_same_not_found_for_a_foreign_block(cli: Cli, live_cast: Cast) -> None:
    foreign = live_cast.outsider.store(title="theirs")["id"]
    runs = [cli("graph", foreign), cli("graph", "00000000-0000-0000-0000-000000000000")]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr and "(not_found)" in runs[0].stderr


def test_it_shows_the_servers_message_for_an_unknown_class(cli: Cli, chain: dict[str, str]) -> None:
    run = cli("graph", chain["root"], "--class", "fuzzy")
    assert run.returncode == 1
    assert (
        run.stderr.startswith("error: 'link_class' must be one of")
        and "(validation_error)" in run.stderr
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--hops", "4"),
        ("--min-confidence", "1.5"),
        ("--limit", "x"),
        ("--limit", "5001"),
        ("--per-node-cap", "101"),
        ("--edge-limit", "0"),
    ],
)
def test_it_exits_2_on_bad_options(offline_cli: Cli, args: tuple[str, ...]) -> None:
    assert offline_cli("graph", "some-id", *args).returncode == 2
