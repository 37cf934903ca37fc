from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import ctx_cli as ctx  # the client's version; the server's is the same
from tests.cli.conftest import Cli
from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared


@pytest.fixture(scope="module")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """uvicorn serving the whole ASGI app: the version comes from /mcp's handshake."""
    yield from shared(tmp_path_factory)


def test_it_reports_the_servers_version(
    live: LiveServer, live_cast: Cast, offline_cli: Cli
) -> None:
    run = offline_cli("version", CTX_BASE_URL=live.url, CTX_KEY=live_cast.owner.key)
    assert run.returncode == 0, run.stderr
    assert run.json() == {"client": ctx.__version__, "server": ctx.__version__}
    screen = offline_cli.tty("version", CTX_BASE_URL=live.url, CTX_KEY=live_cast.owner.key)
    assert screen.stdout.strip() == f"ctx {ctx.__version__} (client), server {ctx.__version__}"


def test_it_says_why_the_servers_version_is_unknown(offline_cli: Cli) -> None:
    run = offline_cli("version")
    assert run.returncode == 0
    assert run.json() == {"client": ctx.__version__, "server": None}
    screen = offline_cli.tty("version").stdout.strip()
    assert screen.startswith(f"ctx {ctx.__version__} (client), server unknown: cannot reach ctx")


def test_it_prints_only_the_client_version_with_client(offline_cli: Cli) -> None:
    assert offline_cli("version", "--client").json() == {"client": ctx.__version__}
    run = offline_cli.tty("version", "--client")
    assert run.returncode == 0 and run.stdout.strip() == f"ctx {ctx.__version__} (client)"


def test_it_needs_no_configuration(offline_cli: Cli) -> None:
    offline_cli.config_dir.mkdir(parents=True)
    (offline_cli.config_dir / "config").write_text("broken\n")
    run = offline_cli.tty("version", CTX_BASE_URL=None, CTX_KEY=None)
    assert run.returncode == 0 and "server unknown: config file" in run.stdout
    assert offline_cli("version", "--client", CTX_BASE_URL=None, CTX_KEY=None).returncode == 0
