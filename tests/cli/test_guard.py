"""`ctx guard list|stats|resolve`."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from dream.models import GuardFlag
from tests.cli.conftest import Cli
from tests.conftest import Api, Cast


def _flag(api: Api, title: str = "Deploys") -> GuardFlag:
    twin = Block.objects.get(pk=api.store(title=title, content="We deploy on Fridays.")["id"])
    copy = Block.objects.get(
        pk=api.store(title=f"{title} copy", content="We deploy Fridays.")["id"]
    )
    return GuardFlag.objects.create(
        block=copy, twin=twin, scope_id=copy.scope_id, similarity=0.95, kind="similar"
    )


def test_it_lists_open_flags_and_counts_them(cli: Cli, live_cast: Cast) -> None:
    flag = _flag(live_cast.owner)
    _flag(live_cast.outsider, "Theirs")
    listed = cli("guard", "list").json()
    assert [f["id"] for f in listed["flags"]] == [flag.pk]
    assert listed["flags"][0]["twin"]["title"] == "Deploys"
    assert cli("guard", "list", "--status", "kept").json()["flags"] == []
    assert cli("guard", "stats").json()["stats"] == {"open": 1, "by_kind": {"similar": {"open": 1}}}
    screen = cli.tty("guard", "list").stdout
    assert "Deploys copy" in screen and "0.950" in screen
    assert "similar" in cli.tty("guard", "stats").stdout


def test_it_archives_the_flagged_block(cli: Cli, live_cast: Cast) -> None:
    flag = _flag(live_cast.owner)
    run = cli("guard", "resolve", str(flag.pk), "archive")
    assert run.returncode == 0, run.stderr
    assert run.json()["flag"]["status"] == "archived"
    assert Block.objects.get(pk=flag.block_id).archived
    assert cli.tty("guard", "resolve", str(flag.pk), "keep").stdout.strip() == (
        f"flag {flag.pk}: kept"
    )
    assert not Block.objects.get(pk=flag.block_id).archived


def test_it_merges_the_flagged_block_into_its_twin(cli: Cli, live_cast: Cast) -> None:
    flag = _flag(live_cast.owner)
    run = cli("guard", "resolve", str(flag.pk), "merge")
    assert run.returncode == 0, run.stderr
    twin = Block.objects.get(pk=flag.twin_id)
    assert Block.objects.get(pk=flag.block_id).content in twin.content
    assert Block.objects.get(pk=flag.block_id).archived


def test_it_gives_the_same_not_found_for_a_foreign_flag(cli: Cli, live_cast: Cast) -> None:
    foreign = _flag(live_cast.outsider, "Theirs")
    runs = [
        cli("guard", "resolve", str(foreign.pk), "archive"),
        cli("guard", "resolve", "0", "archive"),
    ]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr and "(not_found)" in runs[0].stderr
    assert not Block.objects.get(pk=foreign.block_id).archived


@pytest.mark.parametrize(
    "args",
    [("guard",), ("guard", "resolve", "1", "delete"), ("guard", "list", "--status", "closed")],
)
def test_it_exits_2_on_bad_arguments(offline_cli: Cli, args: Any) -> None:
    assert offline_cli(*args).returncode == 2
