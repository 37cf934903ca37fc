"""`make run` on a busy port: an explicit CTX_PORT is refused before anything starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ctx.runtime.launcher import choose_port

ROOT = Path(__file__).resolve().parents[2]


def test_it_refuses_an_explicit_port_that_is_taken(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env.update(CTX_PORT=str(busy), CTX_HOST="127.0.0.1", CTX_DATA_DIR=str(tmp_path / "d"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "ctx.runtime.launcher", "run"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so a launcher that went on is stopped with what it started
        )
        try:
            _, stderr = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # before the fix: it started on another port
            os.killpg(proc.pid, signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
            raise AssertionError(f"started anyway:\n{stderr}") from None
    assert proc.returncode == 2
    assert f"port {busy} on 127.0.0.1 is in use (CTX_PORT={busy})" in stderr
    assert "Traceback" not in stderr and not (tmp_path / "d").exists()


def test_the_default_port_taken_moves_with_a_warning_that_says_what_still_points_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The whole launcher would start every service just to print this; the choice is one call.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        port = choose_port("127.0.0.1", busy, explicit=False)
    assert port != busy and port > 0
    warning = capsys.readouterr().err
    assert f"WARNING: port {busy} on 127.0.0.1 is in use, so ctx runs on port {port}" in warning
    assert f"made for :{busy} will not reach it" in warning
