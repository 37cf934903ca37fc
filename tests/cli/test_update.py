from __future__ import annotations

from ctx.models import Block
from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_changes_only_the_given_fields(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(category="infra", title="Docker", content="v1", tags=["a"])
    run = cli("update", stored["id"][:8], "--title", "Compose", "--tag", "ops,prod")
    assert run.returncode == 0, run.stderr
    block = Block.objects.get(pk=stored["id"])
    assert (block.title, block.content, block.tags) == ("Compose", "v1", ["ops", "prod"])
    assert block.category == "infra"


def test_it_reads_new_content_from_stdin(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(title="Docker", content="v1")
    run = cli("update", stored["id"], "--content", "-", stdin="v2 from stdin\n")
    assert run.returncode == 0, run.stderr
    assert Block.objects.get(pk=stored["id"]).content.strip() == "v2 from stdin"


def test_it_needs_something_to_change(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(title="Docker", content="v1")
    run = cli("update", stored["id"])
    assert run.returncode == 2 and "nothing to change" in run.stderr


def test_it_cannot_update_another_tenants_block(cli: Cli, live_cast: Cast) -> None:
    theirs = live_cast.outsider.store(title="x", content="theirs")
    run = cli("update", theirs["id"], "--title", "mine")
    assert run.returncode == 1 and "(not_found)" in run.stderr
    assert Block.objects.get(pk=theirs["id"]).title == "x"
