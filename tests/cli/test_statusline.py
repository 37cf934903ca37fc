from __future__ import annotations

import json
import time

from tests.cli.conftest import Cli
from tests.conftest import Cast
from tests.tenancy.test_ratelimit import limits  # noqa: F401 - a fixture

STATUS_INPUT = json.dumps({"model": {"display_name": "Opus"}, "workspace": {"current_dir": "/x"}})


def test_it_prints_the_block_count_and_home_scope(cli: Cli, live_cast: Cast) -> None:
    for i in range(3):
        live_cast.owner.store(title=f"t{i}")
    run = cli("statusline", stdin=STATUS_INPUT)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "ctx ● 3 blocks · acme:main\n"


def test_it_says_offline_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("statusline", stdin=STATUS_INPUT)
    assert run.returncode == 0 and run.stdout == "ctx ○ offline\n"


def test_it_gives_up_quickly_on_a_server_that_does_not_answer(
    offline_cli: Cli, blackhole_url: str
) -> None:
    started = time.monotonic()
    run = offline_cli("statusline", stdin=STATUS_INPUT, CTX_BASE_URL=blackhole_url)
    elapsed = time.monotonic() - started
    assert run.stdout == "ctx ○ offline\n"
    assert elapsed < 2.0  # start-up plus a 0.15 s timeout; the default 30 s would hang here


def test_it_shows_auth_and_config_problems_without_failing(cli: Cli) -> None:
    assert cli("statusline", CTX_KEY="ctx_bad").stdout == "ctx ○ unauthorized\n"
    assert cli("statusline", CTX_KEY=None).stdout == "ctx ○ no key (run ctx init)\n"
    cli.config_dir.mkdir(parents=True)
    (cli.config_dir / "config").write_text("junk\n")
    broken = cli("statusline", CTX_KEY=None, CTX_BASE_URL=None)
    assert broken.returncode == 0 and broken.stdout == "ctx ○ config error\n"


def test_it_shows_the_keys_read_headroom_when_rates_are_limited(
    cli: Cli,
    live_cast: Cast,
    limits: None,  # noqa: F811 - burst 3, then one a second
) -> None:
    run = cli("statusline", stdin=STATUS_INPUT)
    # The line's own two requests (stats, whoami) spent two of the three reads.
    assert run.returncode == 0 and run.stdout == "ctx ● 0 blocks · acme:main · 1/3 reads\n"
