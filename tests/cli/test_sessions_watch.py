"""`ctx sessions watch`: polls the logs, uploads what is new, and a restarted watch goes on
where the last one stopped (the cursors are saved after every round)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ingest.models import Message
from tests.cli.conftest import Cli
from tests.cli_sessions.conftest import make_home

SESSION = "5b1d0c6e-2f4a-4c1e-9a77-0f1e2d3c4b5a"


def _append(transcript: Path, uuid: str, text: str) -> None:
    line = {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SESSION,
        "timestamp": "2026-03-02T10:00:00.000Z",
        "cwd": "/home/dev/shop-app",
        "message": {"role": "user", "content": text},
    }
    with transcript.open("a") as fh:
        fh.write(json.dumps(line) + "\n")


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    root = make_home("claude_code", tmp_path)
    return root, root / ".claude" / "projects" / "-home-dev-shop-app" / f"{SESSION}.jsonl"


def test_it_uploads_messages_written_while_it_watches(cli: Cli, tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path)
    args = ("sessions", "watch", "--tool", "claude-code", "--path", str(root))
    proc = subprocess.Popen(
        cli.command((*args, "--interval", "2", "--rounds", "2")),
        env=cli.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # printed after the first round uploaded something
    _append(transcript, "u-live", "written during the watch")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert json.loads(first)["tools"]["claude-code"]["messages"] == {"new": 21}
    assert json.loads(out)["tools"]["claude-code"]["messages"] == {"new": 1}
    assert Message.objects.filter(text="written during the watch").count() == 1


def test_it_goes_on_where_a_stopped_watch_left_off(cli: Cli, tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path)
    args = ("sessions", "watch", "--tool", "claude-code", "--path", str(root), "--rounds", "1")
    assert cli(*args).returncode == 0
    _append(transcript, "u-after", "written while no watch ran")
    again = cli(*args)
    assert json.loads(again.stdout)["tools"]["claude-code"]["messages"] == {"new": 1}
    assert Message.objects.count() == 22


def test_it_keeps_polling_when_the_server_is_down(offline_cli: Cli, tmp_path: Path) -> None:
    root, _ = _setup(tmp_path)
    args = ("sessions", "watch", "--path", str(root), "--rounds", "2", "--interval", "1")
    run = offline_cli(*args)
    assert run.returncode == 0 and run.stderr.count("cannot reach ctx") == 2
