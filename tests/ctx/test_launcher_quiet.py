"""`make run` says little while it starts: no Celery banners, no progress bars, no warnings a
user cannot act on, and the once-only bootstrap key after everything its children print."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctx.runtime import launcher, ready

VALUES: dict[str, object] = {"CTX_HOST": "127.0.0.1", "CTX_TRUST_PROXY": False, "CTX_WORKERS": 1}


def test_it_starts_celery_without_its_banner(tmp_path: Path) -> None:
    commands = launcher._commands(VALUES, tmp_path, 8000)
    for name in ("worker", "ingest", "beat"):
        command = commands[name]
        # celery's own option, before the sub-command: no ASCII-art banner, no config dump
        assert command.index("--quiet") < command.index(name if name != "ingest" else "worker")


LEAK = "import multiprocessing as mp, os; lock = mp.get_context('spawn').Lock(); os._exit(0)"
XDG = "import warnings; warnings.warn('XDG_RUNTIME_DIR is not set, falling back to /tmp/x')"


def _stderr(code: str, env: dict[str, str]) -> str:
    """What a child prints on stderr, the resource tracker's note at its exit included."""
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    time.sleep(0.5)  # the tracker writes after the child exited; it shares the pipe
    return proc.stderr


@pytest.mark.parametrize(("code", "noise"), [(LEAK, "leaked semaphore"), (XDG, "XDG_RUNTIME_DIR")])
def test_it_silences_warnings_nobody_can_act_on_in_children(code: str, noise: str) -> None:
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    assert noise in _stderr(code, plain)  # the noise is real
    quiet = plain | launcher._quiet_env(plain)
    assert _stderr(code, quiet) == ""  # and an invalid -W would say so here


def test_it_turns_off_progress_bars_but_keeps_what_the_user_set() -> None:
    quiet = launcher._quiet_env({"TRANSFORMERS_VERBOSITY": "info"})
    assert quiet["TQDM_DISABLE"] == "1" and quiet["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    assert quiet["TRANSFORMERS_VERBOSITY"] == "info"


def test_it_waits_for_every_process_of_every_child(tmp_path: Path) -> None:
    web, beat = tmp_path / "web", tmp_path / "beat"
    files = {"web": (web, 2), "beat": (beat, 1)}
    (tmp_path / "web.101").touch()
    assert ready.wait(files, [], timeout=0.3) == ["web", "beat"]
    (tmp_path / "web.102").touch()
    (tmp_path / "beat.103").touch()
    assert ready.wait(files, [], timeout=5) == []


def test_it_stops_waiting_when_a_child_exits(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with pytest.raises(RuntimeError, match="exited during start-up"):
        ready.wait({"web": (tmp_path / "web", 1)}, [gone], timeout=5)


def test_it_announces_each_process_under_its_pid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ready.announce()  # no CTX_READY_FILE: nothing written
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv(ready.ENV, str(tmp_path / "worker"))
    ready.announce()
    assert ready.announced(tmp_path / "worker") == 1
    assert (tmp_path / f"worker.{os.getpid()}").exists()
