"""The README's `ctx …` lines (and the Claude Code hooks it shows) run a `ctx` found on PATH:
`make cli` is the documented step that puts it there, and `make run` says so when it is not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctx.runtime import launcher

ROOT = Path(__file__).resolve().parents[2]
STAMP = ".venv/.installed"  # the Makefile's install stamp: `-o` keeps make from reinstalling


def test_it_documents_make_cli_before_the_first_ctx_command() -> None:
    readme = (ROOT / "README.md").read_text()
    first_ctx = readme.index("ctx init")
    assert "make cli" in readme[:first_ctx]
    assert '"command": "ctx brief --hook"' in readme  # the hooks run `ctx` from PATH too


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_it_links_a_working_ctx_into_a_directory_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    made = subprocess.run(
        ["make", "-s", "-o", STAMP, "cli", f"CLI_DIR={bin_dir}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    assert "not on your PATH" not in made.stdout
    ran = subprocess.run(
        ["ctx", "version", "--client"], env=env, capture_output=True, text=True, check=True
    )
    assert '"client"' in ran.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_it_leaves_another_ctx_alone(tmp_path: Path) -> None:
    (tmp_path / "ctx").write_text("#!/bin/sh\necho mine\n")
    made = subprocess.run(
        ["make", "-s", "-o", STAMP, "cli", f"CLI_DIR={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert made.returncode != 0 and "is not a link" in made.stderr
    assert (tmp_path / "ctx").read_text() == "#!/bin/sh\necho mine\n"


def test_it_tells_how_to_get_ctx_on_path_when_the_shell_would_not_find_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    launcher._cli_hint()
    assert "`make cli` links it into ~/.local/bin" in capsys.readouterr().out
    (tmp_path / "ctx").symlink_to(Path(sys.executable).parent / "ctx")
    launcher._cli_hint()
    assert capsys.readouterr().out == ""
