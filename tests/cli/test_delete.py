from __future__ import annotations

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_archives_the_block(cli: Cli, live_cast: Cast) -> None:
    stored = live_cast.owner.store(title="gone")
    run = cli("delete", stored["id"])
    assert run.returncode == 0, run.stderr
    assert run.json() == {"success": True, "action": "archived", "id": stored["id"]}
    assert cli("get", stored["id"]).returncode == 1


def test_it_cannot_delete_what_the_key_cannot_see(cli: Cli, live_cast: Cast) -> None:
    foreign = live_cast.outsider.store(title="theirs")["id"]
    run = cli("delete", foreign)
    assert run.returncode == 1 and "(not_found)" in run.stderr
    assert live_cast.outsider.post("/api/manage", {"action": "get", "id": foreign})[0] == 200
