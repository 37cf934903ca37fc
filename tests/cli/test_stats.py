from __future__ import annotations

import re

from ctx.tasks import measure_storage
from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_counts_blocks_by_scope_and_type(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(title="a")
    live_cast.owner.store(title="b", type="decision", scope="acme:team")
    gone = live_cast.owner.store(title="c")
    live_cast.owner.post("/api/manage", {"action": "delete", "id": gone["id"]})
    stats = cli("stats").json()["stats"]
    assert stats["blocks"] == 2 and stats["archived"] == 1
    assert stats["scopes"] == {"acme:main": 1, "acme:team": 1}
    assert stats["types"] == {"knowledge": 1, "decision": 1}


def test_it_draws_a_panel_on_a_terminal(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(title="a")
    measure_storage()  # the hourly task
    run = cli.tty("stats")
    assert run.returncode == 0 and "blocks" in run.stdout and "acme:main=1" in run.stdout
    # The Dream backlog and each scope's size, in words.
    # (the note is not embedded yet, so Dream has nothing to pick)
    assert "on: 0 due now, 0 cooling down (0 due within the hour), 0 never dreamed" in run.stdout
    assert re.search(r"acme:main [0-9.,]+ (B|KB)", run.stdout)
