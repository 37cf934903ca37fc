from __future__ import annotations

import os
import pty
import stat
import sys
import time

from tests.cli.conftest import Cli, read_all


def _config(cli: Cli) -> str:
    return (cli.config_dir / "config").read_text()


def test_it_writes_the_config_with_mode_0600_and_checks_it(cli: Cli) -> None:
    run = cli(
        "init", "--url", cli.url or "", "--key", cli.key or "", CTX_BASE_URL=None, CTX_KEY=None
    )
    assert run.returncode == 0, run.stderr
    path = cli.config_dir / "config"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"CTX_BASE_URL={cli.url}\nCTX_KEY={cli.key}\n" in _config(cli)
    body = run.json()
    assert body["checked"] is True and body["whoami"]["tenant"] == "acme"
    assert cli("whoami", CTX_BASE_URL=None, CTX_KEY=None).json()["key"]["name"] == "owner"


def test_it_says_who_you_are_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("init", "--url", cli.url or "", "--key", cli.key or "")
    assert run.returncode == 0, run.stderr
    assert "saved" in run.stdout and "key 'owner'" in run.stdout and "tenant acme" in run.stdout


def test_it_skips_the_check_with_no_check(offline_cli: Cli) -> None:
    run = offline_cli("init", "--url", "http://example.invalid:9", "--key", "k1", "--no-check")
    assert run.returncode == 0 and run.json()["checked"] is False
    assert "CTX_BASE_URL=http://example.invalid:9\nCTX_KEY=k1\n" in _config(offline_cli)


def test_it_keeps_the_file_but_fails_when_the_server_is_down(offline_cli: Cli) -> None:
    run = offline_cli("init", "--url", offline_cli.url or "", "--key", "k1")
    assert run.returncode == 1
    assert "saved" in run.stderr and "cannot reach ctx" in run.stderr
    assert "CTX_KEY=k1" in _config(offline_cli)


def test_it_fails_when_the_key_is_wrong(cli: Cli) -> None:
    run = cli("init", "--url", cli.url or "", "--key", "ctx_nope")
    assert run.returncode == 1 and "(unauthorized)" in run.stderr


def test_it_needs_a_key_when_it_cannot_prompt(offline_cli: Cli) -> None:
    run = offline_cli("init", "--url", "http://localhost:1", CTX_KEY=None)
    assert run.returncode == 2 and "no API key" in run.stderr
    assert not (offline_cli.config_dir / "config").exists()


def test_it_rejects_a_url_that_is_not_http(offline_cli: Cli) -> None:
    run = offline_cli("init", "--url", "ftp://x", "--key", "k", "--no-check")
    assert run.returncode == 1 and "must be an http:// or https:// URL" in run.stderr


def _expect(fd: int, marker: bytes, seen: bytearray, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while marker not in seen:
        assert time.monotonic() < deadline, f"no {marker!r} in {bytes(seen)!r}"
        seen += os.read(fd, 1024)


def test_it_prompts_on_a_terminal_and_hides_the_key(cli: Cli) -> None:
    env = cli.env(CTX_BASE_URL=None, CTX_KEY=None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal session of its own, so getpass can hide input
        argv = [sys.executable, "-m", "ctx_cli.main", "init"]
        os.execve(sys.executable, argv, env)  # noqa: S606 -- a fixed argv, no shell
    seen = bytearray()
    _expect(fd, b"Server URL", seen)
    os.write(fd, f"{cli.url}\n".encode())
    _expect(fd, b"API key", seen)
    os.write(fd, f"{cli.key}\n".encode())
    rest = read_all(fd)
    _, status = os.waitpid(pid, 0)
    transcript = (bytes(seen) + rest).decode()
    assert os.waitstatus_to_exitcode(status) == 0, transcript
    assert str(cli.key) not in transcript  # typed, never echoed
    assert "tenant acme" in transcript
    assert f"CTX_KEY={cli.key}" in _config(cli)
