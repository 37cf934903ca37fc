"""`ctx exec`: the local sandbox's guards, each through the command people run.

No server is needed: output under the 5 KB threshold never leaves the machine. The CLI runs
as root here, so the sandbox runs programs as `nobody`; files a test wants the program to be
able to touch live in a world-writable directory outside pytest's 0700 tmp tree.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Cli

BOMB = """
import os, sys, time
n = 0
try:
    while n < 400:  # a fork bomb with a safety cap: the test must stay harmless if it goes red
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        n += 1
except OSError as exc:
    print("fork failed after", n, exc.strerror)
    sys.exit(3)
print("forked", n)
"""


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory anyone may write (and its parents searchable): what a guard must protect
    without help from file permissions."""
    path = Path(tempfile.mkdtemp(prefix="ctx-exec-test-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def sandbox_cli(open_dir: Path) -> Cli:
    """The CLI with a HOME anyone may read, its config file included (0644 on purpose)."""
    home = open_dir / "home"
    config = home / ".config" / "ctx"
    config.mkdir(parents=True)
    for folder in (home, home / ".config", config):
        folder.chmod(0o755)
    (config / "config").write_text("CTX_BASE_URL=http://127.0.0.1:9\nCTX_KEY=ctx_filekey_abc123\n")
    (config / "config").chmod(0o644)
    return Cli(home=home, url=None, key=None)


def _exec(
    cli: Cli, *args: str, cwd: Path | None = None, **env: str | None
) -> tuple[int, dict[str, Any], str]:
    run = cli("exec", "--json", *args, cwd=cwd, **env)
    return run.returncode, json.loads(run.stdout or "{}"), run.stderr


def _alive(needle: bytes) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and needle in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(entry)
        except OSError:
            pass
    return found


def test_it_never_starts_a_denied_command(sandbox_cli: Cli, open_dir: Path) -> None:
    project = open_dir / "project"
    (project / ".claude").mkdir(parents=True)
    deny = {"permissions": {"deny": ["Read(./.env)", "Bash(touch:*)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(deny))
    marker = open_dir / "marker"
    code, payload, _ = _exec(sandbox_cli, f"echo start; touch {marker}", cwd=project)
    assert code == 1 and payload["status"] == "denied"
    assert payload["rule"] == "Bash(touch:*)" and payload["command"] == f"touch {marker}"
    assert payload["origin"].endswith(".claude/settings.json")
    assert "start" not in json.dumps(payload)  # nothing ran, not even the first command
    assert not marker.exists()
    # The same command from a project without the rule runs.
    code, payload, _ = _exec(sandbox_cli, f"touch {marker}", cwd=open_dir)
    assert code == 0 and marker.exists()


def test_it_reads_the_users_deny_rules_and_shell_outs_of_other_languages(
    sandbox_cli: Cli, open_dir: Path
) -> None:
    (sandbox_cli.home / ".claude").mkdir()
    deny = {"permissions": {"deny": ["Bash(rm -rf *)"]}}
    (sandbox_cli.home / ".claude" / "settings.json").write_text(json.dumps(deny))
    victim = open_dir / "victim"
    victim.mkdir()
    victim.chmod(0o777)
    program = f"import os\nos.system('rm -rf {victim}')\n"
    code, payload, _ = _exec(sandbox_cli, "--lang", "python", program, cwd=open_dir)
    assert code == 1 and payload["status"] == "denied" and payload["rule"] == "Bash(rm -rf *)"
    assert victim.is_dir()


def test_it_redirects_a_fetch_neutrally_instead_of_blocking_it(sandbox_cli: Cli) -> None:
    run = sandbox_cli("exec", "curl -s https://example.com/")
    assert run.returncode == 1
    assert run.stderr.startswith("not run: curl -s https://example.com/: ")
    assert "fetch_and_index" in run.stderr and "denied" not in run.stderr
    payload = sandbox_cli("exec", "--json", "wget https://example.com/").json()
    assert payload["status"] == "redirected" and payload["tool"] == "fetch_and_index"


def test_it_stops_a_fork_bomb_at_the_process_limit(sandbox_cli: Cli) -> None:
    code, payload, _ = _exec(sandbox_cli, "--lang", "python", "--timeout", "10", BOMB)
    assert code == 3, payload
    assert payload["output"].startswith("fork failed after ")
    assert int(payload["output"].split()[3]) <= 64  # Limits.processes


def test_it_kills_an_endless_loop_and_everything_it_started(sandbox_cli: Cli) -> None:
    started = time.monotonic()
    code, payload, _ = _exec(
        sandbox_cli, "--timeout", "2", "sleep 987654 & echo looping; while :; do :; done"
    )
    assert code == 124 and payload["timed_out"] and payload["output"] == "looping\n"
    assert time.monotonic() - started < 8
    assert _alive(b"sleep\x00987654") == []


def test_it_stops_a_large_allocation_at_the_memory_limit(sandbox_cli: Cli) -> None:
    program = "data = bytearray(3 * 1024 ** 3)\nprint('allocated', len(data))"
    code, payload, _ = _exec(sandbox_cli, "--lang", "python", program)
    assert code == 1 and "MemoryError" in payload["stderr"]
    assert "allocated" not in payload["output"]


def test_it_keeps_the_config_file_and_credentials_from_the_program(sandbox_cli: Cli) -> None:
    config = sandbox_cli.config_dir / "config"
    program = f"cat {config}; cat $HOME/.config/ctx/config; env"
    code, payload, _ = _exec(
        sandbox_cli,
        program,
        CTX_KEY="ctx_envkey_987654321",
        MY_API_TOKEN="tok-1234567890",
        INNOCENT="prefix ctx_envkey_987654321 suffix",
        DATABASE_URL="postgres://u:pw@db/x",
        KEEP_ME="visible-value",
    )
    assert code == 0
    seen = payload["output"] + payload["stderr"]
    assert "visible-value" in seen  # the environment is there, minus the credentials
    for secret in ("ctx_filekey_abc123", "ctx_envkey_987654321", "tok-1234567890", "pw@db"):
        assert secret not in seen
    assert payload["isolation"]["config_dir"] == "hidden"
    assert payload["isolation"]["network"] == "off"


def test_it_cuts_large_output_to_head_and_tail_without_an_intent(sandbox_cli: Cli) -> None:
    code, payload, _ = _exec(sandbox_cli, "seq 1 20000")
    assert code == 0 and payload["mode"] == "head_tail"
    assert payload["output"].startswith("1\n2\n") and payload["output"].endswith("19999\n20000\n")
    assert "lines cut; give an intent to search the whole output" in payload["output"]
    assert len(payload["output"]) < 5000 and payload["output_bytes"] > 100_000


def test_it_runs_a_script_file_and_a_data_file(sandbox_cli: Cli, open_dir: Path) -> None:
    script = open_dir / "count.py"
    script.write_text("import sys\nprint(sum(1 for line in sys.stdin if 'ERROR' in line))\n")
    data = open_dir / "app.log"
    data.write_text("INFO a\nERROR b\nERROR c\n")
    code, payload, _ = _exec(sandbox_cli, "--file", str(script), "--input", str(data))
    assert code == 0 and payload["language"] == "python" and payload["output"] == "2\n"


def test_it_keeps_session_figures_for_stats(sandbox_cli: Cli) -> None:
    for _ in range(2):
        assert sandbox_cli("exec", "seq 1 5000", CTX_SESSION_ID="s-1").returncode == 0
    figures = sandbox_cli("stats", "--session", "--json", CTX_SESSION_ID="s-1").json()
    row = figures["tools"]["exec"]
    assert figures["session"] == "s-1" and row["calls"] == 2
    assert row["bytes_produced"] == 2 * len("".join(f"{i}\n" for i in range(1, 5001)))
    assert 0 < row["bytes_returned"] < row["bytes_produced"] / 4
    assert row["savings"] == round(1 - row["bytes_returned"] / row["bytes_produced"], 4)
    table = sandbox_cli.tty("stats", "--session", "s-1")
    text = " ".join(table.stdout.split())
    assert "savings = 1 - returned / produced" in text and "│ exec │ 2 │" in text


def test_it_lists_the_runtimes_it_found(sandbox_cli: Cli) -> None:
    payload = sandbox_cli("runtimes", "--json").json()
    languages = [r["language"] for r in payload["runtimes"]]
    assert {"shell", "python"} <= set(languages)
    assert set(payload["isolation"]) == {"namespaces", "network", "config_dir", "user"}


def test_it_refuses_a_data_file_a_read_rule_denies(sandbox_cli: Cli, open_dir: Path) -> None:
    project = open_dir / "project"
    (project / ".claude").mkdir(parents=True)
    deny = {"permissions": {"deny": ["Read(./.env)", "Read(./secrets/**)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(deny))
    (project / ".env").write_text("API_TOKEN=tok-abcdef123456\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "prod.json").write_text('{"password": "pw-123456789"}')
    (project / "notes.txt").write_text("fine\n")
    for name, rule in ((".env", "Read(./.env)"), ("secrets/prod.json", "Read(./secrets/**)")):
        run = sandbox_cli("exec", "--input", name, "cat", cwd=project)
        assert run.returncode == 1 and run.stdout == ""
        assert f"path: blocked by the deny rule {rule} in " in run.stderr
    code, payload, _ = _exec(sandbox_cli, "--input", "notes.txt", "cat", cwd=project)
    assert code == 0 and payload["output"] == "fine\n"


def test_it_never_runs_a_command_naming_a_path_a_read_rule_denies(
    sandbox_cli: Cli, open_dir: Path
) -> None:
    project = open_dir / "project"
    (project / ".claude").mkdir(parents=True)
    project.chmod(0o777)
    deny = {"permissions": {"deny": ["Read(./.env)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(deny))
    (project / ".env").write_text("API_TOKEN=tok-abcdef123456\n")
    (project / "README.md").write_text("# Shop\n")
    code, payload, _ = _exec(sandbox_cli, "echo start > started; cat .env", cwd=project)
    assert code == 1 and payload["status"] == "denied" and payload["command"] == "cat .env"
    assert payload["rule"] == "Read(./.env)" and payload["origin"].endswith("settings.json")
    assert "tok-abcdef" not in json.dumps(payload)
    assert not (project / "started").exists()  # nothing ran, not even the first command
    run = sandbox_cli("exec", "cat .env", cwd=project)
    assert run.returncode == 1 and "tok-abcdef" not in run.stdout
    assert run.stderr.startswith("denied: cat .env: blocked by the deny rule Read(./.env) in ")
    code, payload, _ = _exec(sandbox_cli, "cat README.md", cwd=project)
    assert code == 0 and payload["output"] == "# Shop\n"
