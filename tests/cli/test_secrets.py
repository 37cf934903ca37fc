"""`ctx secrets list|set|rotate|rm`: values from stdin only, never echoed."""

from __future__ import annotations

from typing import Any

import pytest

from secrets import crypto, selectors
from secrets.models import Secret
from tests.cli.conftest import Cli
from tests.conftest import Cast

VALUE = "sk-live-Zq8xV3-never-on-screen"
MASTER = "a1" * 32


@pytest.fixture(autouse=True)
def master_key(settings: Any) -> None:
    """The live server runs in this process: its settings are these."""
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY": MASTER, "CTX_SECRETS_KEY_FILE": ""}


def _opened(name: str) -> str:
    """The stored plaintext, opened with the master key (what break-glass would print)."""
    row = Secret.objects.select_related("scope__tenant").get(name=name)
    key = crypto.parse_key(MASTER, source="test")
    plain, _ = crypto.unseal(
        [key],
        scope=selectors.qualified_scope(row.scope),
        name=name,
        sealed=selectors.sealed_of(row),
    )
    return plain


def _nowhere(run: Any) -> None:
    assert VALUE not in run.stdout and VALUE not in run.stderr


def test_it_stores_a_value_read_from_stdin(cli: Cli, live_cast: Cast) -> None:
    run = cli("secrets", "set", "OPENAI_KEY", stdin=VALUE + "\n")
    assert run.returncode == 0, run.stderr
    _nowhere(run)
    body = run.json()
    assert body["action"] == "created" and body["secret"]["scope"] == "acme:main"
    assert _opened("OPENAI_KEY") == VALUE  # without the newline `echo` added


def test_it_lists_names_and_never_values(cli: Cli, live_cast: Cast) -> None:
    cli("secrets", "set", "OPENAI_KEY", stdin=VALUE)
    listed = cli("secrets", "list")
    assert [s["name"] for s in listed.json()["secrets"]] == ["OPENAI_KEY"]
    screen = cli.tty("secrets", "list")
    assert "OPENAI_KEY" in screen.stdout and "acme:main" in screen.stdout
    _nowhere(listed)
    _nowhere(screen)


def test_it_rotates_only_an_existing_secret(cli: Cli, live_cast: Cast) -> None:
    missing = cli("secrets", "rotate", "OPENAI_KEY", stdin=VALUE)
    assert missing.returncode == 1 and "(not_found)" in missing.stderr
    assert not Secret.objects.exists()
    cli("secrets", "set", "OPENAI_KEY", stdin="first")
    run = cli("secrets", "rotate", "OPENAI_KEY", stdin=VALUE)
    assert run.returncode == 0, run.stderr
    assert run.json()["action"] == "rotated" and run.json()["secret"]["rotated_by"]
    assert _opened("OPENAI_KEY") == VALUE
    _nowhere(run)


def test_it_deletes_a_secret(cli: Cli, live_cast: Cast) -> None:
    cli("secrets", "set", "OPENAI_KEY", stdin=VALUE)
    run = cli.tty("secrets", "rm", "OPENAI_KEY")
    assert run.returncode == 0 and "deleted secret OPENAI_KEY from acme:main" in run.stdout
    assert not Secret.objects.exists()
    again = cli("secrets", "rm", "OPENAI_KEY")
    assert again.returncode == 1 and "(not_found)" in again.stderr


def test_it_refuses_a_value_on_the_command_line(cli: Cli, live_cast: Cast) -> None:
    for action in ("set", "rotate"):
        run = cli("secrets", action, "OPENAI_KEY", VALUE)
        assert run.returncode == 2 and "read from stdin only" in run.stderr
        assert VALUE not in run.stderr
    assert not Secret.objects.exists()


def test_it_refuses_an_empty_value(cli: Cli, live_cast: Cast) -> None:
    for stdin in ("", "\n"):
        run = cli("secrets", "set", "OPENAI_KEY", stdin=stdin)
        assert run.returncode == 2 and "empty" in run.stderr
    assert not Secret.objects.exists()


def test_it_shows_the_servers_refusal_to_a_member(cli: Cli, live_cast: Cast) -> None:
    run = cli("secrets", "set", "OPENAI_KEY", stdin=VALUE, CTX_KEY=live_cast.writer.key)
    assert run.returncode == 1 and run.stdout == "" and "(forbidden)" in run.stderr
    _nowhere(run)
    assert not Secret.objects.exists()


def test_it_exits_2_without_a_name(offline_cli: Cli) -> None:
    assert offline_cli("secrets", "set").returncode == 2
    assert offline_cli("secrets").returncode == 2
